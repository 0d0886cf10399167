// webauthn-benchmark: measures the parsers and whole-ceremony replay on recorded
// ceremonies (default: Fixtures/). Speed is measured here, never in timed tests.
//
//   swift run -c release webauthn-benchmark [--iterations N] [file-or-folder...]
import Foundation
import WebAuthnReplay
import WebAuthnRP

var iterations = 200
var paths: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--iterations", let value = arguments.popFirst(), let n = Int(value), n > 0 {
        iterations = n
    } else {
        paths.append(argument)
    }
}
if paths.isEmpty { paths = ["Fixtures"] }

/// Collects every registration's attestationObject and every response's clientDataJSON
/// and authenticatorData from the fixture files, for the parser benchmarks.
func samples(in paths: [String]) -> (attestation: [[UInt8]], clientData: [[UInt8]], authData: [[UInt8]]) {
    var attestation: [[UInt8]] = [], clientData: [[UInt8]] = [], authData: [[UInt8]] = []
    var files: [String] = []
    for path in paths {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
        if isDirectory.boolValue {
            let walker = FileManager.default.enumerator(atPath: path)
            while let relative = walker?.nextObject() as? String {
                if relative.hasSuffix(".json") { files.append((path as NSString).appendingPathComponent(relative)) }
            }
        } else {
            files.append(path)
        }
    }
    for file in files {
        guard let data = FileManager.default.contents(atPath: file),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let ceremonies = root["ceremonies"] as? [[String: Any]] else { continue }
        for ceremony in ceremonies {
            guard let response = (ceremony["response"] as? [String: Any])?["response"] as? [String: Any] else { continue }
            func bytes(_ key: String) -> [UInt8]? { (response[key] as? String).flatMap { try? Base64URL.decode($0) } }
            if let a = bytes("attestationObject") { attestation.append(a) }
            if let c = bytes("clientDataJSON") { clientData.append(c) }
            if let d = bytes("authenticatorData") { authData.append(d) }
        }
    }
    return (attestation, clientData, authData)
}

func measure(_ name: String, operations: Int, _ body: () -> Void) {
    guard operations > 0 else { print("\(name): no samples"); return }
    let clock = ContinuousClock()
    let elapsed = clock.measure(body)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let perOperation = seconds / Double(operations) * 1e9
    let label = name.padding(toLength: 34, withPad: " ", startingAt: 0)
    print(label + String(format: " %10.0f ns/op  %12.0f op/s  (%d ops)", perOperation, Double(operations) / seconds, operations))
}

let found = samples(in: paths)
measure("CBOR.decode(attestationObject)", operations: found.attestation.count * iterations) {
    for _ in 0..<iterations { for bytes in found.attestation { _ = try? CBOR.decode(bytes) } }
}
measure("AttestationObject(bytes:)", operations: found.attestation.count * iterations) {
    for _ in 0..<iterations { for bytes in found.attestation { _ = try? AttestationObject(bytes: bytes) } }
}
measure("CollectedClientData(jsonBytes:)", operations: found.clientData.count * iterations) {
    for _ in 0..<iterations { for bytes in found.clientData { _ = try? CollectedClientData(jsonBytes: bytes) } }
}
measure("AuthenticatorData(bytes:)", operations: found.authData.count * iterations) {
    for _ in 0..<iterations { for bytes in found.authData { _ = try? AuthenticatorData(bytes: bytes) } }
}

// Whole ceremonies: parse, verify (signatures, chains) and registry bookkeeping.
let replayRounds = max(1, iterations / 20)
let clock = ContinuousClock()
var ceremonies = 0
let elapsed = await clock.measure {
    for _ in 0..<replayRounds { ceremonies += await Replayer.replay(paths: paths).results.count }
}
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("replay (files, verify, registry)".padding(toLength: 34, withPad: " ", startingAt: 0)
      + String(format: " %10.0f µs/ceremony  %8.0f ceremonies/s  (%d ceremonies)",
               seconds / Double(max(ceremonies, 1)) * 1e6, Double(ceremonies) / seconds, ceremonies))
