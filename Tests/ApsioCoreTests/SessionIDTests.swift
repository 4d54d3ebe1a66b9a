import ApsioCore
import Testing

@Suite struct SessionIDTests {
    @Test func invocationIDBecomesAUUID() {
        #expect(SessionID.fromInvocationID("6F1C2A4E8B7D4C1E9A532D0F7E6B1C90") == "6f1c2a4e-8b7d-4c1e-9a53-2d0f7e6b1c90")
    }

    @Test(arguments: ["", "6f1c2a4e8b7d4c1e9a532d0f7e6b1c9", "6f1c2a4e8b7d4c1e9a532d0f7e6b1c900",
                      "6f1c2a4e-8b7d-4c1e-9a53-2d0f7e6b1c90", "zz1c2a4e8b7d4c1e9a532d0f7e6b1c90",
                      "00000000000000000000000000000000"])
    func anythingElseIsNoSession(_ text: String) {
        #expect(SessionID.fromInvocationID(text) == nil)
    }
}
