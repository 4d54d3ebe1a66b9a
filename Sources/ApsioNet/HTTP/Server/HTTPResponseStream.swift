/// A response body written piece by piece while the handler runs, for server-sent events: the
/// server writes the head, then each piece `produce` sends, and closes the connection when
/// `produce` returns or the client goes (then `produce` is cancelled, and `send` throws).
package struct HTTPResponseStream: Sendable {
    package let produce: @Sendable (_ send: @Sendable ([UInt8]) async throws -> Void) async -> Void

    package init(_ produce: @escaping @Sendable (_ send: @Sendable ([UInt8]) async throws -> Void) async -> Void) {
        self.produce = produce
    }
}
