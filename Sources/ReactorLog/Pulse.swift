/// A state property whose observers hear every assignment, even of an equal value: for one-off events
/// such as an alert message or a navigation request (ReactorKit's `@Pulse`).
///
/// ```swift
/// struct State { @Pulse var alertMessage: String? }
/// reactor.observe(pulse: \.$alertMessage) { message in showAlert(message) }
/// ```
@propertyWrapper
public struct Pulse<Value> {
    /// The value.
    public var value: Value
    /// How many times the value was assigned; wraps around to 0 after `UInt.max`.
    public private(set) var valueUpdatedCount: UInt

    /// A pulse holding `wrappedValue`, never assigned yet.
    public init(wrappedValue: Value) {
        self.value = wrappedValue
        self.valueUpdatedCount = 0
    }

    /// A pulse holding `value`, assigned `updatedCount` times (for restoring a saved state).
    public init(value: Value, updatedCount: UInt) {
        self.value = value
        self.valueUpdatedCount = updatedCount
    }

    /// The value; every assignment counts, even of an equal value.
    public var wrappedValue: Value {
        get { value }
        set {
            value = newValue
            valueUpdatedCount &+= 1
        }
    }

    /// The pulse itself, for `observe(pulse: \.$property)`.
    public var projectedValue: Pulse<Value> { self }
}

extension Pulse: Sendable where Value: Sendable {}
extension Pulse: Equatable where Value: Equatable {}
extension Pulse: Hashable where Value: Hashable {}
extension Pulse: Codable where Value: Codable {}
