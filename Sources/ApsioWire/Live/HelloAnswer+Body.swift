package import ApsioCore
package import ApsioJSON
extension HelloAnswer {
    /// The answer's JSON body, nil when there was none or it was not JSON: every field has its
    /// default then.
    package init(body: JSONValue?, limits: Limits = .spec) {
        self.init(
            viewers: LiveNumbers.count(body?["viewers"]),
            interval: HelloInterval.seconds(from: body?["interval_s"]?.numberValue, limits: limits),
            token: DeviceToken(body?["device_token"]?.stringValue, limits: limits))
    }
}
