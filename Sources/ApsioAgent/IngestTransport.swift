public import ApsioCore

/// Where an app's ingest batches go: `POST {Backend}/v1/logs`. The exporter hands over a body already
/// gzip-compressed and gets the status back; tests put a scripted backend here.
public protocol IngestTransport: Sendable {
    /// Sends one batch and returns what came back: `.status` with `Retry-After`, or `.failed` when no
    /// answer came (refused, reset, timed out, unreadable). Throws only when the task is cancelled.
    func post(gzippedOTLPJSON body: [UInt8]) async throws(CancellationError) -> LiveResponse
}
