/// The number under which a log's writer knows an ``EntryEncoder`` registered through a ``LogStream``.
package struct EncoderID: Sendable, Hashable {
    let number: UInt32
}
