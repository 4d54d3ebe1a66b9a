import Foundation
import Testing

/// Every system call of the package goes through ApsioPOSIX, where EINTR, errno and close-on-exec
/// are dealt with once (docs/architecture-syscalls.md). This reads the sources, so that a raw call
/// slipped in elsewhere fails a test, not a review. Files that cannot go through it yet are listed
/// with their reason; an entry whose file no longer makes a raw call fails too, so the list stays
/// true.
@Suite struct SyscallFunnelTests {
    static let sourcesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// Paths under Sources/ (a folder when it ends with "/") allowed raw calls, and why.
    static let allowed: [String: String] = [
        "apsio-embed-viewer/main.swift":
            "the build plugin's tool: it depends on no module of the package, so it has no ApsioPOSIX to call",
    ]

    /// System calls and the libc wrappers that stand for one (opendir is open and fdopendir).
    static let calls = """
        open openat creat read write pread pwrite readv writev close fsync fdatasync rename renameat unlink
        unlinkat mkdir mkdirat rmdir chmod fchmod chown fchown lchown stat lstat fstat fstatat statvfs fstatvfs
        access faccessat opendir fdopendir readdir closedir flock ftruncate truncate lseek socket socketpair bind
        listen accept accept4 connect send sendto sendmsg recv recvfrom recvmsg setsockopt getsockopt
        getsockname getpeername shutdown poll ppoll select fcntl ioctl pipe pipe2 dup dup2 dup3 kill readlink
        inotify_init1 inotify_add_watch inotify_rm_watch epoll_create1 epoll_ctl epoll_wait timerfd_create
        timerfd_settime eventfd mmap munmap isatty symlink link getpid getppid getuid geteuid getgid getegid
        getgroups uname signal sigaction
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)

    static func sources() throws -> [(path: String, text: String)] {
        let names = (FileManager.default.subpaths(atPath: sourcesDirectory.path) ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
        return try names.map { ($0, try String(contentsOf: sourcesDirectory.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The lines of `text` that call one of `calls` as a C function, with the call's name.
    static func rawCalls(in text: String) throws -> [(line: Int, call: String)] {
        // Only Glibc (or Foundation, which brings it) makes the C functions visible at all.
        let imports = try NSRegularExpression(pattern: #"^\s*(@\w+\s+)?((public|package|internal)\s+)?import\s+(Glibc|Foundation)\b"#, options: .anchorsMatchLines)
        guard imports.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil else { return [] }
        // In a type of its own with a method of the name, the bare name is that method; a C call
        // there has to be spelled Glibc.name.
        let declaration = try NSRegularExpression(pattern: #"func\s+(\w+)\s*[(<]"#)
        let declared = Set(declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        })
        let call = try NSRegularExpression(pattern: #"(?<![\w.])(Glibc\.)?("# + calls.joined(separator: "|") + #")\("#)
        let strings = try NSRegularExpression(pattern: #""(\\.|[^"\\])*""#)
        var found: [(Int, String)] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(rawLine).trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("//") { continue }
            line = strings.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "\"\"")
            if let comment = line.range(of: "//") { line = String(line[..<comment.lowerBound]) }
            for match in call.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                guard let nameRange = Range(match.range(at: 2), in: line) else { continue }
                let name = String(line[nameRange])
                let qualified = match.range(at: 1).location != NSNotFound
                let before = line[..<nameRange.lowerBound]
                if !qualified && declared.contains(name) { continue }
                if before.hasSuffix("func ") { continue }
                // `stat()` with nothing in it is the struct's zero value, not the call.
                if name == "stat" && line[nameRange.upperBound...].hasPrefix("()") { continue }
                found.append((index + 1, name))
            }
        }
        return found
    }

    static func allowance(for path: String) -> String? {
        allowed.first { key, _ in key.hasSuffix("/") ? path.hasPrefix(key) : path == key }?.value
    }

    @Test func noRawSystemCallOutsideApsioPOSIX() throws {
        let sources = try Self.sources()
        #expect(sources.count > 100)
        var withCalls: Set<String> = []
        for (path, text) in sources where !path.hasPrefix("ApsioPOSIX/") {
            let calls = try Self.rawCalls(in: text)
            guard !calls.isEmpty else { continue }
            withCalls.insert(path)
            guard Self.allowance(for: path) == nil else { continue }
            for (line, name) in calls {
                Issue.record("Sources/\(path):\(line) calls \(name)(2) itself: use ApsioPOSIX (FileSystem, OwnedFileDescriptor, …)")
            }
        }
        for path in Self.allowed.keys where !path.hasSuffix("/") {
            #expect(withCalls.contains(path), "Sources/\(path) makes no raw call any more: take it off the allowed list")
        }
    }

    /// CLinux declares what Swift's Glibc leaves out (epoll, timerfd, accept4): ApsioPOSIX alone
    /// imports it, so those calls cannot be made anywhere else either.
    @Test func onlyApsioPOSIXImportsCLinux() throws {
        for (path, text) in try Self.sources() where !path.hasPrefix("ApsioPOSIX/") {
            #expect(!text.contains("import CLinux"), "Sources/\(path) imports CLinux")
        }
    }

    /// The scan itself: what it must find and what it must leave alone.
    @Test func theScanTellsCallsFromMethodsAndStrings() throws {
        let text = """
            import Glibc
            struct Queue {
                func read(maxBytes: Int) {}
                func go(fd: Int32) {
                    try read(maxBytes: 1)
                    file.close()
                    let message = "open(\\(path)) failed"
                    // write(2) in a comment
                    var info = stat()
                    _ = Glibc.read(fd, nil, 0)
                    _ = unlink(path)
                }
            }
            """
        let calls = try Self.rawCalls(in: text).map(\.call)
        #expect(calls == ["read", "unlink"])
        #expect(try Self.rawCalls(in: "struct A { func f() { _ = unlink(p) } }").isEmpty, "no Glibc, no C call")
    }

    /// Every descriptor ApsioPOSIX makes is close-on-exec from the call that makes it, so that no
    /// child inherits one: the flag (`O_CLOEXEC`, `SOCK_CLOEXEC` or `SocketFlags.closeOnExec`) is on the call's line or
    /// the two before it (a flags variable).
    @Test func everyDescriptorIsMadeCloseOnExec() throws {
        let makers = try NSRegularExpression(pattern: #"(?<![\w.])(Glibc\.)?(open|openat|socket|socketpair|accept4|epoll_create1|timerfd_create|inotify_init1|pipe2|dup3|memfd_create|eventfd)\("#)
        let forbidden = try NSRegularExpression(pattern: #"(?<![\w.])(Glibc\.)?(dup|dup2|pipe|accept|creat|opendir)\("#)
        let strings = try NSRegularExpression(pattern: #""(\\.|[^"\\])*""#)
        for (path, text) in try Self.sources() where path.hasPrefix("ApsioPOSIX/") {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                strings.stringByReplacingMatches(in: String($0), range: NSRange($0.startIndex..., in: $0), withTemplate: "\"\"")
            }
            for (index, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let range = NSRange(line.startIndex..., in: line)
                if forbidden.firstMatch(in: line, range: range) != nil {
                    Issue.record("Sources/\(path):\(index + 1) makes a descriptor without a close-on-exec flag")
                }
                guard makers.firstMatch(in: line, range: range) != nil, !line.contains("func ") else { continue }
                let context = lines[max(0, index - 2)...index].joined(separator: "\n")
                #expect(context.contains("CLOEXEC") || context.contains("SocketFlags.closeOnExec"), "Sources/\(path):\(index + 1) makes a descriptor without CLOEXEC")
            }
        }
    }
}
