/// The newest release of this package that CHANGELOG.md lists (`## [X.Y.Z]`), kept equal to it
/// by `PackageVersionTests`. Recordings name it in their `source`, so a file from production
/// says which verifier judged it. Raised in the release commit, with the changelog and the API
/// baseline (README.md, "Releases and support").
package let webAuthnRPVersion = "0.4.0"
