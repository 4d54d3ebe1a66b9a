import ApsioCore
import ApsioJSON

/// A sign-in as Redis keeps it, under the SHA-256 of its secret token (`FleetKeys.signIn`): the
/// person, their role, their password's stamp (`PasswordHash.stamp`), the public id their viewer
/// is named by, and when it began (its hard lifetime counts from there; its idle lifetime is the
/// key's own expiry, renewed on use).
struct FleetSignIn: Sendable, Equatable {
    let id: String
    let user: String
    let role: AccountRole
    /// nil in a record an earlier backend wrote: it stands for nobody (`AccountsBook`).
    let passwordStamp: String?
    let createdUnixMs: Int64

    func encoded() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id"); writer.string(id)
        writer.key("user"); writer.string(user)
        writer.key("role"); writer.string(role.rawValue)
        if let passwordStamp { writer.key("stamp"); writer.string(passwordStamp) }
        writer.key("created"); writer.int(createdUnixMs)
        writer.endObject()
        return writer.bytes
    }

    init(id: String, user: String, role: AccountRole, passwordStamp: String?, createdUnixMs: Int64) {
        self.id = id
        self.user = user
        self.role = role
        self.passwordStamp = passwordStamp
        self.createdUnixMs = createdUnixMs
    }

    init?(decoding bytes: [UInt8]) {
        guard let object = JSONBody.object(bytes), let id = object["id"]?.stringValue, let user = object["user"]?.stringValue,
            let role = object["role"]?.stringValue.flatMap(AccountRole.init(rawValue:)), let created = object["created"]?.numberValue
        else { return nil }
        self.init(
            id: id, user: user, role: role, passwordStamp: object["stamp"]?.stringValue, createdUnixMs: Int64(created))
    }
}
