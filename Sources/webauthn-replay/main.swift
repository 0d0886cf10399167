// webauthn-replay: replays recorded WebAuthn ceremonies (`webauthn-ceremonies/1`) and
// prints one verdict line per ceremony, then `N passed, N failed`.
// Exit codes: 0 all met their expectation, 1 some did not, 2 a fixture file is unusable.
import Foundation
import WebAuthnReplay

let usage = """
    usage: webauthn-replay [--json] [--explain] <file-or-folder>...
      --json      print one JSON document instead of text lines
      --explain   print each ceremony's verification steps
           webauthn-replay metadata BLOB --root ROOT [--crl CRL]... [--at TIME]
      verifies a downloaded FIDO MDS3 BLOB against ROOT (DER or PEM) and lists its entries
    """

if CommandLine.arguments.dropFirst().first == "metadata" {
    let (text, code) = MetadataListing.run(Array(CommandLine.arguments.dropFirst(2)))
    print(text)
    exit(code)
}

var paths: [String] = []
var json = false
var explain = false
for argument in CommandLine.arguments.dropFirst() {
    switch argument {
    case "--json": json = true
    case "--explain": explain = true
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        if argument.hasPrefix("-") {
            FileHandle.standardError.write(Data("webauthn-replay: unknown option \(argument)\n\(usage)\n".utf8))
            exit(2)
        }
        paths.append(argument)
    }
}
guard !paths.isEmpty else {
    FileHandle.standardError.write(Data("\(usage)\n".utf8))
    exit(2)
}

let report = await Replayer.replay(paths: paths)
print(json ? ReplayFormatter.json(report, explain: explain) : ReplayFormatter.text(report, explain: explain))
exit(report.exitCode)
