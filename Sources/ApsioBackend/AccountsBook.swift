import Synchronization

/// The accounts as the backend knows them now: read at the start, read again on SIGHUP. A
/// sign-in names a person and their password's stamp, never their rights: every request of a
/// signed-in person is checked against the book as it stands, so a person removed from the file,
/// or whose password was set again, is signed out at their next request, and one demoted to
/// viewer sends no more commands (16.7), whatever their sign-in said.
package final class AccountsBook: Sendable {
    private let file: Mutex<AccountsFile>

    package init(_ accounts: AccountsFile) {
        file = Mutex(accounts)
    }

    package var current: AccountsFile { file.withLock { $0 } }

    package func replace(with accounts: AccountsFile) {
        file.withLock { $0 = accounts }
    }

    /// The person as the book has them now; nil once they are no longer in it.
    package func account(named user: String) -> Account? {
        file.withLock { $0.account(named: user) }
    }

    /// The account a sign-in still stands for: the person is in the book and their password is
    /// the one they signed in with (`PasswordHash.stamp`); nil otherwise, and the sign-in ends.
    /// A sign-in without a stamp (made by an earlier backend) stands for nobody.
    package func account(named user: String, passwordStamp: String?) -> Account? {
        guard let account = account(named: user), let passwordStamp, account.password.stamp == passwordStamp else { return nil }
        return account
    }
}
