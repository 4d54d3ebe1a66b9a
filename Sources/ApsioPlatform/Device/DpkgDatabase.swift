package import ApsioCore
internal import Glibc
internal import Synchronization

/// What dpkg knows about installed packages, read from its database files rather than by running
/// `dpkg-query` (no process to spawn, no output format to parse, and a root a test can point
/// elsewhere): `status` for versions and sizes, `info/*.list` for who owns a path.
package final class DpkgDatabase: Sendable {
    package let root: String
    package let limits: ReadLimits

    private struct State {
        var packages: [String: ExecutableFacts.Package]?
        /// Owners found so far, by path asked. The lists of a full system hold a few hundred
        /// thousand paths; a daemon asks about a handful of executables, so it keeps answers rather
        /// than an index of every path.
        var owners: [String: String?] = [:]
    }

    private let state = Mutex(State())

    package init(root: String = "/var/lib/dpkg", limits: ReadLimits = .standard) {
        self.root = root
        self.limits = limits
    }

    /// The installed package that owns `path`, as `dpkg-query -S` then `-W` would find it.
    package func package(owning path: String) -> ExecutableFacts.Package? {
        owner(of: path).flatMap { package(named: $0) }
    }

    /// An installed package by name, `name:arch` for a multi-arch `same` package.
    package func package(named name: String) -> ExecutableFacts.Package? {
        state.withLock { state in
            if state.packages == nil { state.packages = loadStatus() }
            return state.packages?[name]
        }
    }

    /// The package whose file list holds `path`. Debian 12 merged `/bin` into `/usr/bin` while
    /// packages still list some files under `/bin`, so the path is also tried through its symbolic
    /// links and under its merged-`/usr` alias.
    package func owner(of path: String) -> String? {
        if let known = state.withLock({ $0.owners[path] }) { return known }
        let found = findOwner(Self.candidates(path))
        state.withLock { $0.owners[path] = .some(found) }
        return found
    }

    static func candidates(_ path: String) -> [String] {
        var out = [path]
        if let resolved = realpath(path, nil) {
            out.append(String(cString: resolved))
            free(resolved)
        }
        for candidate in out {
            for (short, long) in [("/bin/", "/usr/bin/"), ("/sbin/", "/usr/sbin/"), ("/lib", "/usr/lib")] {
                if candidate.hasPrefix(short) { out.append("/usr" + candidate) }
                if candidate.hasPrefix(long) { out.append(String(candidate.dropFirst(4))) }
            }
        }
        var seen: Set<String> = []
        return out.filter { seen.insert($0).inserted }
    }

    private func findOwner(_ candidates: [String]) -> String? {
        let info = join(root, "info")
        guard let names = try? SmallFile.names(in: info, limit: 1_000_000) else { return nil }
        let wanted = Set(candidates)
        for name in names where name.hasSuffix(".list") {
            guard let list = try? SmallFile.text(join(info, name), limit: limits.dpkgFileBytes) else { continue }
            if list.split(whereSeparator: \.isNewline).contains(where: { wanted.contains(String($0)) }) {
                return String(name.dropLast(".list".count))
            }
        }
        return nil
    }

    private func loadStatus() -> [String: ExecutableFacts.Package] {
        guard let text = try? SmallFile.text(join(root, "status"), limit: limits.dpkgFileBytes) else { return [:] }
        return Self.parseStatus(text)
    }

    /// The installed packages of a `status` file, keyed as their `.list` files are named.
    static func parseStatus(_ text: String) -> [String: ExecutableFacts.Package] {
        var out: [String: ExecutableFacts.Package] = [:]
        var fields: [Substring: Substring] = [:]
        func finish() {
            defer { fields = [:] }
            guard let name = fields["Package"], let version = fields["Version"],
                fields["Status"]?.split(separator: " ").last == "installed"
            else { return }
            var key = String(name)
            if fields["Multi-Arch"] == "same", let arch = fields["Architecture"] { key += ":" + arch }
            let size = fields["Installed-Size"].flatMap { Int64($0) }.map { $0 * 1024 }
            out[key] = ExecutableFacts.Package(name: key, version: String(version), installedBytes: size)
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingWhitespace().isEmpty {
                finish()
            } else if let first = line.first, first != " " && first != "\t", let colon = line.firstIndex(of: ":") {
                fields[line[..<colon]] = Substring(line[line.index(after: colon)...].trimmingWhitespace())
            }
        }
        finish()
        return out
    }
}
