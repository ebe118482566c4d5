import Foundation

/// Writes the seed inputs into `directory`, a corpus to start from.
func writeSeeds(to directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (index, seed) in FuzzTarget.seeds().enumerated() {
        try Data(seed).write(to: URL(fileURLWithPath: "\(directory)/seed-\(index)"))
    }
}

#if FUZZING
/// The entry point SwiftPM links as `main`; libFuzzer's own `main` is the one that runs.
@_cdecl("reactorlog_fuzz_main")
func unusedMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { 0 }

/// Before libFuzzer reads its corpus directories: with `REACTORLOG_FUZZ_SEEDS` set, writes the seed inputs there.
@_cdecl("LLVMFuzzerInitialize")
func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    if let directory = ProcessInfo.processInfo.environment["REACTORLOG_FUZZ_SEEDS"] { try? writeSeeds(to: directory) }
    return 0
}

/// One input, as libFuzzer calls it (`Tools/scripts/fuzz.sh` builds with `--sanitize fuzzer -DFUZZING`).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#else
/// Without libFuzzer: runs files as inputs, writes the seed corpus, or mutates the seeds itself.
///
///     reactorlog-fuzz FILE...                 run each file as one input
///     reactorlog-fuzz --seeds DIR             write the seed inputs into DIR (a corpus for libFuzzer)
///     reactorlog-fuzz --mutate N [--seed S]   run N random mutations of the seeds (the test suite's short run);
///                                             a failing input is saved as ./reactorlog-fuzz-failure
@main
enum Driver {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--seeds", arguments.count == 2 {
            return try writeSeeds(to: arguments[1])
        }
        if arguments.first == "--mutate", arguments.count >= 2, let count = Int(arguments[1]) {
            arguments.removeFirst(2)
            var generator = SplitMix(seed: arguments.first == "--seed" ? UInt64(arguments.last ?? "") ?? 1 : 1)
            let seeds = FuzzTarget.seeds()
            for _ in 0..<count {
                FuzzTarget.run(Mutator.mutate(seeds[Int(generator.next() % UInt64(seeds.count))], with: &generator), savingFailuresTo: "reactorlog-fuzz-failure")
            }
            print("reactorlog-fuzz: \(count) inputs, no crash")
            return
        }
        for path in arguments {
            FuzzTarget.run(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }
}

/// A small deterministic generator, so a failing run can be repeated with its seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// libFuzzer's simplest moves: flip, set, insert and delete bytes, truncate, keep the selector byte.
enum Mutator {
    static func mutate(_ seed: [UInt8], with generator: inout SplitMix) -> [UInt8] {
        var bytes = seed
        let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "["), UInt8(ascii: "{")]
        for _ in 0...Int(generator.next() % 4) {
            guard bytes.count > 1 else { break }
            let index = 1 + Int(generator.next() % UInt64(bytes.count - 1))
            switch generator.next() % 6 {
            case 0: bytes[index] ^= UInt8(1 << (generator.next() % 8))
            case 1: bytes[index] = interesting[Int(generator.next() % UInt64(interesting.count))]
            case 2: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            case 3: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
            case 4: bytes.remove(at: index)
            default: bytes.removeLast(Int(generator.next() % UInt64(bytes.count - index)))
            }
        }
        return bytes
    }
}
#endif
