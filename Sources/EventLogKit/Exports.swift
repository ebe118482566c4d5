// The binary payload format is a module of its own, so that a model module can conform its types to
// `BinaryPayloadCodable` without linking LMDB; every user of the log sees it as before.
@_exported import BinaryPayloadKit
