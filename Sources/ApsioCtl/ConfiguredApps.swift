#if canImport(Glibc)
import Glibc
#endif
import ApsioCore

/// The apps the configuration directory names, read without the daemon: each `apps.d/NAME.conf`
/// is app NAME. Only the names: what the files say is the daemon's to read and judge.
enum ConfiguredApps {
    static func directory(_ configDirectory: String) -> String { configDirectory + "/apps.d" }

    /// The configured app names, sorted; nil when the directory cannot be read.
    static func names(configDirectory: String) -> [AppName]? {
        let path = directory(configDirectory)
        guard let stream = opendir(path) else { return errno == ENOENT ? [] : nil }
        defer { closedir(stream) }
        var names: [AppName] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard !name.hasPrefix("."), name.hasSuffix(".conf"), let app = try? AppName(String(name.dropLast(5))) else { continue }
            names.append(app)
            if names.count >= 4096 { break }
        }
        return names.sorted()
    }
}
