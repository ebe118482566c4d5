@_exported import BinaryPayloadKit

/// Writes a struct's or an enum's `BinaryPayloadCodable` conformance at compile time: the bytes
/// and the reading of its synthesized `Codable` conformance, without `Codable`'s containers, so that the log's
/// writer encodes it in a few hundred instructions instead of several thousand.
///
///     import BinaryPayloadMacros
///
///     @BinaryPayloadCoding
///     enum Mutation: Codable, Sendable {
///         case setQuery(String)
///         case setRepos([String], nextPage: Int?)
///         case clear
///     }
///
/// The type keeps its own synthesized `Codable` conformance (declare it); the macro adds `encode(to:)` and
/// `init(from:)` for the binary format, written as that conformance writes: a struct as an object of its stored
/// properties in declaration order (a nil optional left out, a `let` with an initial value written and not read), an
/// enum case as an object of one member, the case name, whose value is an object of the associated values (labelled,
/// or `_0`, `_1`, …), and a type with raw values (an enum's raw type, a `RawRepresentable` struct) as its raw value.
/// Coding keys the type declares in its body are followed as `Codable` follows them: a struct's `CodingKeys` chooses
/// which properties are written, in its order, under its string raw values; an enum's `CodingKeys` renames its cases
/// and a case's `<Case>CodingKeys` its values (one left out keeps its default). Declare them in the type's body: the
/// macro does not see an extension. Every stored property and associated value must itself be `BinaryPayloadCodable`:
/// the standard library's numbers, strings, optionals, arrays and string-keyed dictionaries are, as are Foundation's
/// `Date`, `UUID` and `URL` and any type the macro is attached to. A generic type conforms where its type parameters
/// do (`extension Page: BinaryPayloadEncodable, BinaryPayloadDecodable where Item: …`). A property wrapper's storage
/// (`_alert` of `@Pulse var alert`) is written under the property's name by the wrapper's own conformance, as
/// `Codable` writes it: ReactorLog's `Pulse` has one, and a wrapper of your own takes the macro. The macro sees names,
/// not types: any attribute named like a type is taken for a wrapper, except one whose name ends in `Actor`, which
/// by convention names a global actor (`@MainActor`).
///
/// Where the type's `Codable` is not the synthesized one, the macro says so at compile time rather than write other
/// bytes: a type of its own `encode(to:)` or `init(from:)`, coding keys it cannot read (a type alias or struct, keys
/// with members besides their cases, a raw value other than a plain string literal), a class, a lazy property among
/// the members written, a member or an attribute inside `#if`, a parameter pack. Conform such a type by hand
/// (`BinaryPayloadEncodable`) or leave it to `Codable`. A test can still check any value with
/// `BinaryPayload.checkHandWrittenCoding(of:)`.
@attached(
    extension, conformances: BinaryPayloadEncodable, BinaryPayloadDecodable,
    names: named(encode(to:)), named(init(from:))
)
public macro BinaryPayloadCoding() = #externalMacro(module: "BinaryPayloadMacrosPlugin", type: "BinaryPayloadCodingMacro")
