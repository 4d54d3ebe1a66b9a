import ApsioBackend
import ApsioCore
import ApsioNet
import Foundation
import Testing

/// The viewer's pages as the backend serves them: every file the page names is there, with its
/// type, and the Content-Security-Policy the page runs under allows nothing inline, so a script
/// that would break under it, or an injected one, cannot run.
@Suite struct ViewerPagesTests {
    @Test func thePageComesWithAPolicyThatAllowsNoInlineScriptAndNoOtherOrigin() async throws {
        try await BackendHTTPTests.withBackend { _, client async throws in
            let page = try await client.http.send(.get("/"), to: client.endpoint)
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
            let policy = try #require(page.headers["Content-Security-Policy"])
            #expect(policy.contains("script-src 'self'"))
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(page.headers["X-Content-Type-Options"] == "nosniff")
            #expect(String(decoding: page.body, as: UTF8.self).contains(#"<script type="module" src="/assets/app.js"></script>"#))
        }
    }

    /// A missing file is a page that never loads: every script, style and icon the page names,
    /// and every module a script imports, is served with its type.
    @Test func everyFileThePageNamesIsServedWithItsType() async throws {
        try await BackendHTTPTests.withBackend { _, client async throws in
            let index = String(decoding: try await client.http.send(.get("/"), to: client.endpoint).body, as: UTF8.self)
            var wanted = Self.matches(#"(?:src|href)="(/assets/[^"]+|/favicon\.ico)""#, in: index)
            #expect(wanted.contains("/assets/app.js") && wanted.contains("/assets/viewer.css"))
            var seen: Set<String> = []
            while let path = wanted.popLast() {
                guard seen.insert(path).inserted else { continue }
                let answer = try await client.http.send(.get(path), to: client.endpoint)
                #expect(answer.status == 200, "\(path)")
                let type = answer.headers["Content-Type"] ?? ""
                if path.hasSuffix(".js") {
                    #expect(type == "text/javascript; charset=utf-8", "\(path)")
                    let script = String(decoding: answer.body, as: UTF8.self)
                    wanted += Self.matches(#"from '\./([A-Za-z0-9_-]+\.js)'"#, in: script).map { "/assets/" + $0 }
                }
                if path.hasSuffix(".css") { #expect(type == "text/css; charset=utf-8") }
                if path == "/favicon.ico" { #expect(type == "image/svg+xml") }
            }
            #expect(seen.count >= 6, "the page and its modules: \(seen.sorted())")
        }
    }

    /// What the policy would block, or what would let a line from a device run as code.
    @Test func noPageCarriesInlineScriptStyleOrHandlers() throws {
        #expect(!ViewerAssets.all.isEmpty)
        for asset in ViewerAssets.all.values {
            let text = String(decoding: asset.body, as: UTF8.self)
            if asset.name.hasSuffix(".html") {
                for script in Self.matches(#"<script([^>]*)>"#, in: text) {
                    #expect(script.contains("src="), "\(asset.name): a script without src")
                }
                #expect(!text.contains("></script>") || Self.matches(#"<script[^>]*>([^<]+)</script>"#, in: text).isEmpty)
                #expect(Self.matches(#"\son[a-z]+\s*="#, in: text).isEmpty, "\(asset.name): an inline event handler")
                #expect(Self.matches(#"\sstyle\s*="#, in: text).isEmpty, "\(asset.name): an inline style")
                #expect(!text.contains("<style"), "\(asset.name): an inline stylesheet")
                #expect(!text.lowercased().contains("javascript:"))
            }
            if asset.name.hasSuffix(".js") {
                for unsafe in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                    #expect(!text.contains(unsafe), "\(asset.name) uses \(unsafe): device text must never be parsed as markup or code")
                }
                #expect(!text.contains("setAttribute('style'"), "\(asset.name): an inline style the policy blocks")
                #expect(!text.contains("localStorage") && !text.contains("sessionStorage"), "\(asset.name): the page keeps nothing")
            }
        }
    }

    @Test func anUnchangedAssetIsRevalidatedWith304() async throws {
        try await BackendHTTPTests.withBackend { _, client async throws in
            let first = try await client.http.send(.get("/assets/app.js"), to: client.endpoint)
            let etag = try #require(first.headers["ETag"])
            #expect(first.headers["Cache-Control"] == "no-cache")
            let again = try await client.http.send(.get("/assets/app.js", headers: ["If-None-Match": etag]), to: client.endpoint)
            #expect(again.status == 304 && again.body.isEmpty)
            let other = try await client.http.send(.get("/assets/viewer.css", headers: ["If-None-Match": etag]), to: client.endpoint)
            #expect(other.status == 200)
        }
    }

    @Test func unknownAssetsAndOtherMethodsAreRefused() async throws {
        try await BackendHTTPTests.withBackend { _, client async throws in
            for path in ["/assets/nothing.js", "/assets/", "/assets/../Package.swift", "/assets/index.html", "/index.html"] {
                #expect(try await client.http.send(.get(path), to: client.endpoint).status == 404, "\(path)")
            }
            let post = try await client.send(.postJSON("/assets/app.js", json: Array("{}".utf8)))
            #expect(post.status == 405 && post.headers["Allow"] == "GET")
            #expect(try await client.send(.postJSON("/", json: Array("{}".utf8))).status == 405)
        }
    }

    /// A page that opens or reloads asks whether its person watches before it acts.
    @Test func aPageAsksWhetherItWatchesOverHTTP() async throws {
        try await BackendHTTPTests.withBackend { _, client async throws in
            let ann = try await client.signIn("ann", "ann-password")
            let path = "/api/devices/\(BackendHTTPTests.install)/watch"
            #expect(try await client.api("GET", path, bearer: ann).status == 404)
            _ = try await client.hello()
            let before = try await client.api("GET", path, bearer: ann)
            #expect(before.status == 200 && before.body["watching"] == .bool(false))
            #expect(try await client.api("POST", path, bearer: ann).status == 200)
            let after = try await client.api("GET", path, bearer: ann)
            #expect(after.body["watching"] == .bool(true) && after.body["viewers"]?.numberValue == 1)
            #expect(try await client.api("GET", path, bearer: nil).status == 401)
            #expect(try await client.api("PUT", path, bearer: ann).headers["Allow"] == "DELETE, GET, POST")
        }
    }

    static func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
