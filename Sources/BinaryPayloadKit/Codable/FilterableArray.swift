/// An array that the binary encoder writes itself when a path filter reaches into its elements
/// (EventLogKit's `BinaryLogCodec.encode(_:keepingOnly:)`): the kept element, if any, encoded as usual, and runs of nulls for
/// the rest, without calling into `Codable` once per element left out. Blame of `items.count` or `items[3]` over
/// a long array costs the path, not the array.
protocol FilterableArray {
    /// Writes the array into `encoder`, keeping only what `step` (the filter's step for its elements) keeps.
    func encode(keeping step: BinaryPayload.PathStep, into encoder: BinaryPayloadEncoder) throws
}

extension Array: FilterableArray where Element: Encodable {
    func encode(keeping step: BinaryPayload.PathStep, into encoder: BinaryPayloadEncoder) throws {
        try encoder.encodeArray(count: count, keeping: step) { index in
            try encoder.encodeNested(self[index], key: IndexKey(intValue: index))
        }
    }
}
