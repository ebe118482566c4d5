/// Runs a typed-throwing `body` on the bytes of an array (the standard library's `withUnsafeBytes`
/// rethrows untyped errors).
func withBytes<R>(
    _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(LMDBError) -> R
) throws(LMDBError) -> R {
    let result: Result<R, LMDBError> = bytes.withUnsafeBytes { pointer in
        Result { () throws(LMDBError) -> R in try body(pointer) }
    }
    return try result.get()
}
