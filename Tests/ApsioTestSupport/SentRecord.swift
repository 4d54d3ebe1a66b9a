package import ApsioJSON

/// What a request body holds, record by record, with the Resource each record is under.
package struct SentRecord {
    package var resource: [String: String]
    package var body: String
    package var severityNumber: Int
    package var attributes: [String: JSONValue]

    package var uid: String? { attributes["log.record.uid"]?["stringValue"]?.stringValue }

    package static func all(in request: JSONValue) -> [SentRecord] {
        var out: [SentRecord] = []
        for group in request["resourceLogs"]?.arrayValue ?? [] {
            var resource: [String: String] = [:]
            for attribute in group["resource"]?["attributes"]?.arrayValue ?? [] {
                if let key = attribute["key"]?.stringValue, let value = attribute["value"]?["stringValue"]?.stringValue {
                    resource[key] = value
                }
            }
            for scope in group["scopeLogs"]?.arrayValue ?? [] {
                for record in scope["logRecords"]?.arrayValue ?? [] {
                    var attributes: [String: JSONValue] = [:]
                    for attribute in record["attributes"]?.arrayValue ?? [] {
                        if let key = attribute["key"]?.stringValue { attributes[key] = attribute["value"] }
                    }
                    let severity: Int
                    if case .number(let number)? = record["severityNumber"] { severity = Int(number) } else { severity = 0 }
                    out.append(SentRecord(
                        resource: resource, body: record["body"]?["stringValue"]?.stringValue ?? "",
                        severityNumber: severity, attributes: attributes))
                }
            }
        }
        return out
    }
}
