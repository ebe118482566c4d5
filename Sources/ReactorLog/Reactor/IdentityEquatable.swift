/// Equality by identity, for reactors and other reference types (ReactorKit's `IdentityEquatable`):
/// two values are equal when they are the same instance.
///
/// ```swift
/// extension ProfileViewReactor: IdentityEquatable {}
/// #expect(view.reactor == reactor)
/// ```
public protocol IdentityEquatable: AnyObject, Equatable {}

extension IdentityEquatable {
    /// Whether `lhs` and `rhs` are the same instance.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs === rhs
    }
}

/// Hashing by identity (ReactorKit's `IdentityHashable`): a reactor can key a dictionary or join a set.
public protocol IdentityHashable: IdentityEquatable, Hashable {}

extension IdentityHashable {
    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
