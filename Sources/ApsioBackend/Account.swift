package import ApsioNet

/// A person who can sign in: a name, a role, and a salted PBKDF2 hash of their password.
package struct Account: Sendable, Equatable {
    package let user: String
    package let role: AccountRole
    package let password: PasswordHash

    package init(user: String, role: AccountRole, password: PasswordHash) {
        self.user = user
        self.role = role
        self.password = password
    }

    /// Letters, digits and `.`, `_`, `-`, `@`, 1 to 64 of them: no `:`, which separates the
    /// fields of the accounts file.
    package static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "@")
        }
    }
}
