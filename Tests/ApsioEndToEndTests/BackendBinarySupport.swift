import ApsioJSON
import ApsioNet
import Foundation

/// The backend's tests in process have these too (Tests/ApsioBackendTests/HubHarness.swift): the
/// hashing that makes and checks tester proofs, and a body read as JSON (null when empty or not JSON).
let sha256 = OpenSSLSHA256()

func json(_ bytes: [UInt8]?) -> JSONValue {
    guard let bytes, !bytes.isEmpty else { return .null }
    return (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) ?? .null
}
