/// Names one batch the delivery asked the runtime to send, so that an answer for a batch that was
/// cancelled (consent withdrawn, kill switch) is recognised and ignored.
package struct IngestRequestID: Sendable, Hashable, CustomStringConvertible {
    package let value: UInt64

    package init(value: UInt64) { self.value = value }

    package var description: String { "ingest#\(value)" }
}
