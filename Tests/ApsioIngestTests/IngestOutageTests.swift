import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioPOSIX
import Foundation
import Synchronization
@testable import ApsioTestSupport
import Testing
import ApsioIngest
import ApsioState

/// An outage over a real socket: the backend answers 503, then its port refuses connections, then
/// it comes back on the same port. The exporter's clock is manual, so the backoff is read exactly;
/// the connections are real.
@Suite(.serialized) struct IngestOutageTests {
    /// A `/v1/logs` sink whose answers the test sets; it counts what arrives and keeps what it accepts.
    final class Sink: Sendable {
        let statuses = Mutex<[(Int, String?)]>([])
        let attempts = Atomic<Int>(0)
        let accepted = Mutex<[String]>([])

        func router() -> HTTPRouter {
            var router = HTTPRouter()
            router.add("POST", "/v1/logs") { [self] request in
                attempts.add(1, ordering: .relaxed)
                let (status, retryAfter) = statuses.withLock { $0.isEmpty ? (200, nil) : $0.removeFirst() }
                if status == 200, let body = try? JSONParser(maxBytes: 64 << 20).parse(request.body) {
                    accepted.withLock { $0 += SentRecord.all(in: body).map(\.body) }
                }
                var headers: HTTPHeaders = [:]
                if let retryAfter { headers.set("Retry-After", retryAfter) }
                return HTTPServerResponse(status: status, headers: headers, body: Array("{}".utf8))
            }
            return router
        }
    }

    @Test func a503ThenRefusedConnectionsThenRecoveryLosesNothingAndBacksOff() async throws {
        let journal = try JournalFixture()
        let state = try TemporaryDirectory("apsio-outage-state")
        let clock = ManualAgentClock()
        let sink = Sink()
        sink.statuses.withLock { $0 = [(503, nil), (503, "120")] }
        var server = HTTPServer(bind: "127.0.0.1", port: 0, router: sink.router())
        let port = try await server.start()
        let client = try HTTPClient()
        let reader = try await IngestFixture.reader(journal)
        let exporter = try AppExporter(
            configuration: try IngestFixture.configuration(journal: journal), journal: reader, state: StateLayout(root: state.path),
            clock: clock,
            transport: HTTPIngestTransport(
                client: client, backend: try HTTPEndpoint(scheme: .http, host: "127.0.0.1", port: port),
                appKey: AppKey("apsio_app_outage")),
            hashing: OpenSSLSHA256())
        await exporter.consent(granted: true)
        await exporter.policyChanged(Policy())
        try await exporter.start()
        try await journal.write((0..<50).map { journal.entry(unit: IngestFixture.unit, message: "line \($0)") })
        try await until("50 records queued", on: [exporter, clock]) { await exporter.status.queuedRecords == 50 }

        /// After a failed attempt the exporter's next deadline is `wait` away, and no attempt goes before it.
        @Sendable func waits(_ wait: Duration, _ what: String) async throws {
            let due = clock.now().mono + wait
            try await clock.waitAsleep(what) { $0.first == due }
            #expect(await exporter.status.lastFailure != nil)
        }
        clock.advance(by: .seconds(5))
        try await waits(.seconds(1), "the first 503, then 1 s")
        clock.advance(by: .seconds(1))
        try await waits(.seconds(120), "the second 503's Retry-After of 120 s")
        #expect(sink.attempts.load(ordering: .relaxed) == 2)
        clock.advance(by: .seconds(119))
        #expect(sink.attempts.load(ordering: .relaxed) == 2, "nothing before Retry-After")

        // The backend goes away: its port refuses connections, and the backoff goes on doubling.
        await server.stop()
        clock.advance(by: .seconds(1))
        try await waits(.seconds(4), "a refused connection, then 4 s")
        clock.advance(by: .seconds(4))
        try await waits(.seconds(8), "refused again, then 8 s")
        // What the journal line and `apsioctl status` say is the client's own message, which names what to check.
        #expect(await exporter.status.lastFailure == "no answer from the backend: connection refused by 127.0.0.1 port \(port) (is the server running and listening there?)")
        #expect(await exporter.status.sentRecords == 0)
        #expect(await exporter.status.queuedRecords == 50)

        // It comes back on the same port: everything arrives, once, in order.
        server = HTTPServer(bind: "127.0.0.1", port: port, router: sink.router())
        _ = try await server.start()
        clock.advance(by: .seconds(8))
        try await until("the batch accepted", on: [exporter, clock]) { sink.accepted.withLock { $0.count } == 50 }
        #expect(sink.accepted.withLock { $0 } == (0..<50).map { "line \($0)" })
        #expect(sink.attempts.load(ordering: .relaxed) == 3, "two 503s and the accepted batch reached the server")
        try await until("the queue empty", on: [exporter, clock]) { await exporter.status.queuedRecords == 0 }
        await exporter.stop()
        await reader.stop()
        await server.stop()
    }
}
