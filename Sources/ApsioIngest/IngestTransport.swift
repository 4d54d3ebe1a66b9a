package import ApsioCore
package import ApsioWire

/// Where an app's ingest batches go: `POST {Backend}/v1/logs`. The exporter hands over a body already
/// compressed and gets the status back; tests put a scripted backend here.
package protocol IngestTransport: Sendable {
    /// Sends one batch and returns what came back: `.status` with `Retry-After`, or `.failed` with
    /// why when no answer came (refused, reset, timed out, unreadable, or refused by the client
    /// itself). Throws only when the task is cancelled.
    /// `body` is an `ExportLogsServiceRequest` in `encoding`, compressed with `compression`.
    func post(_ body: [UInt8], encoding: OTLPEncoding, compression: OTLPCompression) async throws(CancellationError) -> IngestAnswer
}

/// What one ingest request brought back: the response the delivery rules act on and, when no
/// answer came, the reason the operator reads in the journal and in `apsioctl status`.
package struct IngestAnswer: Sendable, Equatable {
    package var response: LiveResponse
    /// Why no answer came, as a clause for the log line (`no answer from the backend: …`); nil for
    /// a status, and when the transport cannot tell.
    package var failure: String?
    /// An accepted batch of which the receiver kept not every record (OTLP's `partial_success`).
    package var partialSuccess: OTLPPartialSuccess?

    package init(_ response: LiveResponse, failure: String? = nil, partialSuccess: OTLPPartialSuccess? = nil) {
        self.response = response
        self.failure = failure
        self.partialSuccess = partialSuccess
    }
}
