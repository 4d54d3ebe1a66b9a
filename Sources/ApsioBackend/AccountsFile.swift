import ApsioNet
#if canImport(Glibc)
internal import Glibc
#endif
import ApsioPOSIX

/// The accounts of the backend (`apsio-backend`, `apsio-devbackend`): one line per person,
/// `USER:ROLE:ITERATIONS:SALT_HEX:HASH_HEX` (PBKDF2-HMAC-SHA256), `#` comments and blank lines
/// allowed. No password is ever stored; `apsio-devbackend --add-user` writes the lines.
package struct AccountsFile: Sendable, Equatable {
    package private(set) var accounts: [Account]

    package init(accounts: [Account] = []) {
        self.accounts = accounts
    }

    package func account(named user: String) -> Account? {
        accounts.first { $0.user == user }
    }

    /// Adds the account, or replaces the one of the same name.
    package mutating func set(_ account: Account) {
        if let index = accounts.firstIndex(where: { $0.user == account.user }) {
            accounts[index] = account
        } else {
            accounts.append(account)
        }
    }

    package init(parsing text: String, source: String = "accounts file") throws(BackendConfigurationError) {
        var accounts: [Account] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: " \t\r")
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let fields = trimmed.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            let place = "\(source) line \(number + 1)"
            guard fields.count == 3 else {
                throw .invalidAccounts("\(place): expected USER:ROLE:ITERATIONS:SALT_HEX:HASH_HEX")
            }
            let user = String(fields[0])
            guard Account.isValidName(user) else {
                throw .invalidAccounts("\(place): a user name is 1 to 64 letters, digits, '.', '_', '-' or '@'")
            }
            guard let role = AccountRole(rawValue: String(fields[1])) else {
                throw .invalidAccounts("\(place): the role is viewer or admin")
            }
            guard let hash = PasswordHash(text: String(fields[2])) else {
                throw .invalidAccounts("\(place): the password hash is not ITERATIONS:SALT_HEX:HASH_HEX")
            }
            guard !accounts.contains(where: { $0.user == user }) else {
                throw .invalidAccounts("\(place): \(user) is listed twice")
            }
            accounts.append(Account(user: user, role: role, password: hash))
        }
        self.accounts = accounts
    }

    package var text: String {
        var out = "# apsio-devbackend accounts: USER:ROLE:ITERATIONS:SALT_HEX:HASH_HEX (PBKDF2-HMAC-SHA256)\n"
        for account in accounts {
            out += "\(account.user):\(account.role.rawValue):\(account.password.text)\n"
        }
        return out
    }

    /// Reads the file; a missing file is an error, since a backend nobody can sign in to is of no use.
    package static func load(path: String) throws(BackendConfigurationError) -> AccountsFile {
        let read: [UInt8]?
        do throws(SystemError) {
            read = try FileSystem.readAll(path, maxBytes: 4 * 1024 * 1024)
        } catch where error.errno == EFBIG {
            throw .accountsUnreadable(path: path, reason: "larger than 4 MiB")
        } catch {
            throw .accountsUnreadable(path: path, reason: Self.reason(error))
        }
        guard let bytes = read else {
            throw .accountsUnreadable(path: path, reason: SystemError("open", errno: ENOENT).description)
        }
        return try AccountsFile(parsing: String(decoding: bytes, as: UTF8.self), source: path)
    }

    /// Writes the file readable by its owner only, through a temporary file and a rename, so a
    /// crash never leaves half a file.
    package func save(path: String) throws(BackendConfigurationError) {
        do throws(SystemError) {
            try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600)
        } catch {
            try? FileSystem.removeFile(path + ".tmp")
            throw .accountsUnwritable(path: path, reason: Self.reason(error))
        }
    }

    /// The call without its path (the message names the file already) and the system's words.
    private static func reason(_ error: SystemError) -> String {
        error.withoutArguments.description
    }
}
