/// One `POST /v1/logs` the sink accepted: the app, when, and the request in the OTLP/HTTP JSON
/// mapping (gzip undone; a protobuf body read into it).
package struct IngestedRequest: Sendable, Equatable {
    package let app: String
    package let receivedUnixMs: Int64
    package let json: [UInt8]
}

/// The last requests of the ingest sink, kept in memory for the demo and the tests; the oldest
/// go first. Records sent because of a live command (`apsio.sampling.released=live`) are kept
/// like any other (16.7).
struct IngestLog: Sendable {
    private(set) var requests: [IngestedRequest] = []
    private(set) var total = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    mutating func append(_ request: IngestedRequest) {
        requests.append(request)
        total += 1
        if requests.count > capacity { requests.removeFirst(requests.count - capacity) }
    }
}
