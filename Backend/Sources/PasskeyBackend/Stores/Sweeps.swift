import Synchronization

/// True once every 256 calls: a database store's sweep of expired rows piggy-backs on the
/// 256th write of its kind (the PostgreSQL and the Fluent stores count their own).
package func everyNth(_ counter: borrowing Mutex<Int>) -> Bool {
    counter.withLock { count in
        count += 1
        guard count >= 256 else { return false }
        count = 0
        return true
    }
}
