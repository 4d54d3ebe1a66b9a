import ApsioJSON
/// Reads the members of an answer or an event, refusing a missing or mistyped one as
/// `bad_answer`. Unknown members are ignored: a newer daemon may say more than this client reads.
struct ControlFieldReader {
    let members: [String: JSONValue]
    let what: String

    init(_ value: JSONValue, what: String) throws(ControlError) {
        guard case .object(let members) = value else { throw ControlError(.badAnswer, "\(what) is not a JSON object") }
        self.members = members
        self.what = what
    }

    func string(_ key: String) throws(ControlError) -> String {
        guard let text = members[key]?.stringValue else { throw missing(key, "a string") }
        return text
    }

    func optionalString(_ key: String) throws(ControlError) -> String? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw missing(key, "a string") }
        return text
    }

    func bool(_ key: String) throws(ControlError) -> Bool {
        guard let flag = members[key]?.boolValue else { throw missing(key, "true or false") }
        return flag
    }

    func optionalBool(_ key: String) throws(ControlError) -> Bool? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw missing(key, "true or false") }
        return flag
    }

    func int(_ key: String) throws(ControlError) -> Int {
        guard let number = try optionalInt(key) else { throw missing(key, "an integer") }
        return number
    }

    func optionalInt(_ key: String) throws(ControlError) -> Int? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let number = value.numberValue, number == number.rounded(), abs(number) < 9_007_199_254_740_992 else {
            throw missing(key, "an integer")
        }
        return Int(number)
    }

    /// The member as it is, nil when absent or null.
    func optionalValue(_ key: String) throws(ControlError) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    func array(_ key: String) throws(ControlError) -> [JSONValue] {
        guard let items = members[key]?.arrayValue else { throw missing(key, "an array") }
        return items
    }

    func strings(_ key: String) throws(ControlError) -> [String] {
        var result: [String] = []
        for item in try array(key) {
            guard let text = item.stringValue else { throw missing(key, "an array of strings") }
            result.append(text)
        }
        return result
    }

    private func missing(_ key: String, _ type: String) -> ControlError {
        ControlError(.badAnswer, "\(what) needs \"\(key)\" as \(type)")
    }
}
