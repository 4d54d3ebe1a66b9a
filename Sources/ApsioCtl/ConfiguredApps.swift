import ApsioCore
import ApsioPOSIX

/// The apps the configuration directory names, read without the daemon: each `apps.d/NAME.conf`
/// is app NAME. Only the names: what the files say is the daemon's to read and judge.
enum ConfiguredApps {
    static func directory(_ configDirectory: String) -> String { configDirectory + "/apps.d" }

    /// The configured app names, sorted; an error when the directory cannot be read.
    static func names(configDirectory: String) -> Result<[AppName], SystemError> {
        let path = directory(configDirectory)
        let stream: DirectoryStream
        do {
            guard let opened = try DirectoryStream.open(path) else { return .success([]) }
            stream = opened
        } catch {
            return .failure(error)
        }
        var names: [AppName] = []
        while true {
            let entry: DirectoryStream.Entry
            do {
                guard let next = try stream.next() else { break }
                entry = next
            } catch {
                return .failure(error)
            }
            let name = entry.name
            guard !name.hasPrefix("."), name.hasSuffix(".conf"), let app = try? AppName(String(name.dropLast(5))) else { continue }
            names.append(app)
            if names.count >= 4096 { break }
        }
        return .success(names.sorted())
    }
}
