package import ApsioCore
package import ApsioJSON

extension DeviceMetrics {
    /// The sample as a JSON object's members (the live channel's `metrics`), `t` left out.
    package var attributes: [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: recordAttributes.map { ($0.key, $0.value.json) })
    }
}
