import Synchronization

/// The locked, bounded dictionary behind the in-memory credential, App Attest key and sealed
/// replay stores: insert-if-absent with a capacity, read, compare-and-swap, remove.
final class BoundedTable<Value: Sendable>: Sendable {
    private let entries: Mutex<[ByteKey: Value]>
    /// The most entries held.
    let capacity: Int
    /// The store a full table names in its `serverFault`, and what it holds.
    private let store: String, noun: String

    init(_ initial: [([UInt8], Value)], capacity: Int, store: String, noun: String) {
        self.capacity = max(1, capacity)
        self.store = store
        self.noun = noun
        entries = Mutex(Dictionary(initial.map { (ByteKey($0.0), $0.1) }, uniquingKeysWith: { _, last in last }))
    }

    /// Adds `value` under `id` unless the id is taken. A full table first drops the entries
    /// `whenFullKeep` rejects (expired ones), then refuses rather than forget an entry.
    /// - Returns: false when the id is taken (nothing changes).
    func insertIfAbsent(_ value: Value, id: [UInt8], whenFullKeep keep: ((Value) -> Bool)? = nil) throws(WebAuthnError) -> Bool {
        let key = ByteKey(id)
        return try entries.withLock { (table: inout [ByteKey: Value]) throws(WebAuthnError) -> Bool in
            guard table[key] == nil else { return false }
            if table.count >= capacity, let keep { table = table.filter { keep($0.value) } }
            guard table.count < capacity else {
                throw WebAuthnError(.serverFault, step: store, "full: \(capacity) \(noun)")
            }
            table[key] = value
            return true
        }
    }

    /// The value under `id`, or nil.
    func value(id: [UInt8]) -> Value? {
        let key = ByteKey(id)
        return entries.withLock { $0[key] }
    }

    /// Every value `include` accepts, in no particular order.
    func values(_ include: (Value) -> Bool) -> [Value] {
        entries.withLock { $0.values.filter(include) }
    }

    /// Changes the value under `id` only while `condition` holds for it, under one lock
    /// (compare and swap). - Returns: false when the id is absent or the condition fails.
    func replace(id: [UInt8], if condition: (Value) -> Bool, with change: (inout Value) -> Void) -> Bool {
        let key = ByteKey(id)
        return entries.withLock { table in
            guard let index = table.index(forKey: key), condition(table.values[index]) else { return false }
            change(&table.values[index])
            return true
        }
    }

    /// Removes and returns the value under `id`.
    func remove(id: [UInt8]) -> Value? {
        let key = ByteKey(id)
        return entries.withLock { $0.removeValue(forKey: key) }
    }

    /// How many entries are held.
    var count: Int { entries.withLock { $0.count } }
}
