import ApsioPOSIX
package import ApsioCore
package import ApsioNet
import ApsioWire

/// Ingest over HTTP (LINUX-PROFILE §1): `POST {Backend}/v1/logs` with the app key, OTLP/HTTP in
/// the app's encoding (protobuf or JSON), `Content-Encoding: gzip` or `zstd`. The client follows no
/// redirect (a 3xx comes back as a status, and the delivery retries it like a 5xx), keeps no cookies
/// and no cache, and speaks plain HTTP only to loopback.
package struct HTTPIngestTransport: IngestTransport {
    private let client: HTTPClient
    private let endpoint: HTTPEndpoint
    private let appKey: AppKey
    /// The app file's `Header=` and `HeaderFile=`: a collector's tenant, a vendor's key. Secrets:
    /// they go in this request only, and nowhere else.
    private let extraHeaders: [HTTPHeaders.Field]
    private let timeout: Duration
    private let wallClock: @Sendable () -> Int64

    package static let path = "/v1/logs"

    package init(
        client: HTTPClient, backend: HTTPEndpoint, appKey: AppKey, extraHeaders: [HTTPHeaders.Field] = [],
        timeout: Duration = .seconds(60),
        wallUnixMs: @escaping @Sendable () -> Int64 = SystemAgentClock.wallUnixMs
    ) {
        self.client = client
        endpoint = backend
        self.appKey = appKey
        self.extraHeaders = extraHeaders
        self.timeout = timeout
        wallClock = wallUnixMs
    }

    package func post(
        _ body: [UInt8], encoding: OTLPEncoding, compression: OTLPCompression
    ) async throws(CancellationError) -> IngestAnswer {
        var headers: HTTPHeaders = [
            "Apsio-App-Key": appKey.secret, "Content-Type": encoding.contentType, "Content-Encoding": compression.contentEncoding,
        ]
        for field in extraHeaders { headers.add(field.name, field.value) }
        // A batch sent twice is harmless: every record carries `log.record.uid`, by which the backend
        // drops repeats. So a request that met a connection the server had just closed goes again.
        let request = HTTPRequest(
            method: "POST", path: Self.path, headers: headers, body: body, gzipBody: false, timeout: timeout,
            isIdempotent: true)
        do {
            let response = try await client.send(request, to: endpoint)
            let retryAfter = response.retryAfter(nowUnixSeconds: Int(wallClock() / 1000))
            // An accepted batch's answer may say what the receiver did not keep, in the encoding
            // the batch went in (the OTLP specification); any other body is not read.
            let partial = (200..<300).contains(response.status) ? OTLPPartialSuccess.read(response.body, encoding: encoding) : nil
            return IngestAnswer(.status(response.status, body: [], retryAfter: retryAfter), partialSuccess: partial)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            // The client's message names what to fix (a refused connection, an /etc/hosts line that
            // sends localhost elsewhere) and carries no header or body, so it can go to the log as is.
            return IngestAnswer(.failed, failure: "no answer from the backend: \(error)")
        }
    }
}
