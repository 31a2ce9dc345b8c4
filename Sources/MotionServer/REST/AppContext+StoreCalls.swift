import SessionStore

extension AppContext {
    /// Runs a store call for a REST answer, timed: the one place a store failure becomes an answer. A failure is
    /// counted (`motion_store_errors_total{operation}`), logged and thrown as ``RESTError/storeUnavailable``; a cursor
    /// the store refuses is ``RESTError/invalidCursor``, a live session it will not delete ``RESTError/sessionLive``.
    /// - Parameters:
    ///   - operation: The metrics label, e.g. `get`.
    ///   - writes: Whether the call writes (``timed(_:writes:_:)``).
    ///   - call: The store call.
    /// - Returns: What the call returned.
    /// - Throws: ``RESTError``.
    func answer<T: Sendable>(
        _ operation: String, writes: Bool = false, _ call: () async throws -> T
    ) async throws(RESTError) -> T {
        do {
            return try await timed(operation, writes: writes, call)
        } catch SessionStoreError.invalidCursor {
            throw .invalidCursor
        } catch SessionStoreError.stillLive {
            throw .sessionLive
        } catch {
            metrics.storeFailed(operation)
            logger.log(.error, "store call failed", ["operation": operation, "error": "\(error)"])
            throw .storeUnavailable
        }
    }
}
