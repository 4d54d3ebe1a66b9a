// libFuzzer entry point for otlp (see docs/fuzzing.md): a `POST /v1/logs` body in OTLP/HTTP's
// binary encoding, as apsio-backend's sink reads it (OTLPProtobufLogs) from whoever sends it.
//
// Besides "no crash", it checks: what it reads is kept as JSON the strict parser reads back, an
// object whose `resourceLogs` is an array; a body it refuses says why.
import ApsioCore
import ApsioJSON
import ApsioWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOTLPProtobuf(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let json = try OTLPProtobufLogs.json(from: body)
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: max(json.count, 1), maxDepth: 4 * OTLPProtobufLogs.maxDepth + 16).parse(json)
        } catch {
            check(false, "the JSON kept does not parse: \(error)")
            return 0
        }
        check(value["resourceLogs"]?.arrayValue != nil, "the JSON kept has no resourceLogs array")
    } catch {
        check(!error.description.isEmpty, "a refusal without a reason")
    }
    return 0
}
