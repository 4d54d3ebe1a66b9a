import ApsioCore
import ApsioNet

/// One batch's way to `POST {Backend}/v1/logs`: encoded as OTLP/HTTP protobuf or JSON into a
/// reused buffer, gzip-compressed, posted. Run off the exporter's actor, so that its reader goes on meanwhile.
struct IngestUpload: Sendable {
    let encoder: OTLPLogsEncoder
    /// One of `Gzip.levels`.
    let gzipLevel: Int32
    let transport: any IngestTransport

    /// The backend's answer; nil when cancelled.
    func post(_ runs: [ArraySlice<IngestRecord>], resource: OTLPResource, encoding: OTLPEncoding) async -> IngestAnswer? {
        let request = switch encoding {
        case .protobuf: encoder.encodeProtobuf(app: resource, runs: runs, reusing: IngestScratch.shared.take())
        case .json: encoder.encode(app: resource, runs: runs, reusing: IngestScratch.shared.take())
        }
        let compressed = Result { () throws(GzipError) in try Gzip.compress(request, level: gzipLevel) }
        IngestScratch.shared.giveBack(request)
        let body: [UInt8]
        do {
            body = try compressed.get()
        } catch {
            return IngestAnswer(.failed, failure: "the batch cannot be compressed: \(error)")
        }
        do {
            return try await transport.post(body, encoding: encoding)
        } catch {
            return nil
        }
    }
}
