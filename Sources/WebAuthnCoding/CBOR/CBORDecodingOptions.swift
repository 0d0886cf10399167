/// Limits and strictness for `CBOR.decode(_:options:)`.
///
/// Every limit is checked before anything is allocated for the item it guards.
package struct CBORDecodingOptions: Sendable, Equatable {
    /// Deepest nesting of arrays, maps and tags. The top-level item is depth 1.
    /// Default 16, enough for every WebAuthn structure. Values above
    /// ``hardMaximumDepth`` are clamped so that recursion cannot exhaust the stack.
    package var maximumDepth: Int
    /// Most data items (of any kind, nested ones included) one decode may produce.
    package var maximumItems: Int
    /// Most bytes the map keys that are arrays, maps, tags or simple values may take, in
    /// their canonical encoding, summed over one decode. Such keys compare by that encoding,
    /// and a key nested in a key is encoded again at each level; the budget keeps the work
    /// linear. WebAuthn never uses such keys.
    package var maximumCompositeKeyBytes: Int
    /// Require CTAP2 canonical form: shortest integer, length and tag encodings,
    /// definite lengths only, and map keys in CTAP2 canonical order.
    package var requireCanonical: Bool

    /// The deepest nesting any configuration may ask for.
    package static let hardMaximumDepth = 256

    /// Creates options.
    /// - Parameters:
    ///   - maximumDepth: deepest nesting allowed (default 16).
    ///   - maximumItems: most items one decode may produce (default 65,536).
    ///   - maximumCompositeKeyBytes: most bytes of composite map keys one decode may compare
    ///     (default 65,536).
    ///   - requireCanonical: whether CTAP2 canonical form is required (default false).
    package init(maximumDepth: Int = 16, maximumItems: Int = 65_536, maximumCompositeKeyBytes: Int = 65_536,
                 requireCanonical: Bool = false) {
        self.maximumDepth = maximumDepth
        self.maximumItems = maximumItems
        self.maximumCompositeKeyBytes = maximumCompositeKeyBytes
        self.requireCanonical = requireCanonical
    }

    /// The defaults: depth 16, 65,536 items, 65,536 bytes of composite keys, canonical form not required.
    package static let `default` = CBORDecodingOptions()
    /// The defaults with CTAP2 canonical form required.
    package static let ctap2Canonical = CBORDecodingOptions(requireCanonical: true)
}
