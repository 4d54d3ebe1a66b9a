import ApsioPOSIX

/// The one thread every app's ingest runs on: reading the journal, mapping, redacting, encoding,
/// compressing, sending and saving cursors (docs/ingest.md says why one).
enum IngestThread {
    static let executor = ThreadExecutor(name: "apsio-ingest")
}
