/// A state property whose observers hear every assignment, even of an equal value: for one-off events
/// such as an alert message or a navigation request (ReactorKit's `@Pulse`).
///
/// ```swift
/// struct State { @Pulse var alertMessage: String? }
/// reactor.observe(pulse: \.$alertMessage) { message in showAlert(message) }
/// ```
@propertyWrapper
public struct Pulse<Value> {
    private var storage: Value
    /// How many times the value was assigned; wraps around to 0 after `UInt.max`.
    public private(set) var valueUpdatedCount: UInt

    /// A pulse holding `wrappedValue`, never assigned yet.
    public init(wrappedValue: Value) {
        self.storage = wrappedValue
        self.valueUpdatedCount = 0
    }

    /// A pulse holding `value`, assigned `updatedCount` times (for restoring a saved state).
    public init(value: Value, updatedCount: UInt) {
        self.storage = value
        self.valueUpdatedCount = updatedCount
    }

    /// The value; every assignment counts, even of an equal value, whether through the property
    /// (`state.message = x`) or through the pulse (`state.$message.value = x`).
    public var value: Value {
        get { storage }
        set {
            storage = newValue
            valueUpdatedCount &+= 1
        }
    }

    /// The value; every assignment counts, even of an equal value.
    public var wrappedValue: Value {
        get { storage }
        set { value = newValue }
    }

    /// The pulse itself, for `observe(pulse: \.$property)` and for `state.$property.value = x`.
    public var projectedValue: Pulse<Value> {
        get { self }
        set { self = newValue }
    }
}

extension Pulse: Sendable where Value: Sendable {}
extension Pulse: Equatable where Value: Equatable {}
extension Pulse: Hashable where Value: Hashable {}
extension Pulse: Codable where Value: Codable {
    private enum CodingKeys: String, CodingKey {
        case value, valueUpdatedCount
    }

    /// Decodes `{"value": …, "valueUpdatedCount": n}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            value: try container.decode(Value.self, forKey: .value),
            updatedCount: try container.decode(UInt.self, forKey: .valueUpdatedCount))
    }

    /// Encodes `{"value": …, "valueUpdatedCount": n}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storage, forKey: .value)
        try container.encode(valueUpdatedCount, forKey: .valueUpdatedCount)
    }
}
