import ApsioCore
import ApsioNet
import ApsioWire

/// One batch's way to `POST {Backend}/v1/logs`: encoded as OTLP/HTTP protobuf or JSON into a
/// reused buffer, compressed with gzip or zstd, posted. Run off the exporter's actor, so that its
/// reader goes on meanwhile.
struct IngestUpload: Sendable {
    let encoder: OTLPLogsEncoder
    let gzip: GzipBodyCompressor
    let zstd: ZstdBodyCompressor
    let transport: any IngestTransport

    /// The backend's answer; nil when cancelled. Compressing never fails: should the compressor
    /// fail, the body goes in stored (gzip) or raw (zstd) blocks.
    func post(
        _ runs: [ArraySlice<IngestRecord>], resource: OTLPResource, encoding: OTLPEncoding, compression: OTLPCompression
    ) async -> IngestAnswer? {
        let request = switch encoding {
        case .protobuf: encoder.encodeProtobuf(app: resource, runs: runs, reusing: IngestScratch.shared.take())
        case .json: encoder.encode(app: resource, runs: runs, reusing: IngestScratch.shared.take())
        }
        let body = switch compression {
        case .gzip: gzip.compress(request)
        case .zstd: zstd.compress(request)
        }
        IngestScratch.shared.giveBack(request)
        do {
            return try await transport.post(body, encoding: encoding, compression: compression)
        } catch {
            return nil
        }
    }
}
