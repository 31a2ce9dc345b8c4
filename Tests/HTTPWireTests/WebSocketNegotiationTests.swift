import HTTPWire
import Testing

/// An offer, and the response and parameters the server must answer with (`nil`: declined).
struct NegotiationCase: Sendable, CustomTestStringConvertible {
    var offers: [String]
    var response: String?
    var parameters = PerMessageDeflate.Parameters()
    var configuration = PerMessageDeflate.ServerConfiguration()

    var testDescription: String { offers.joined(separator: " | ") }
}

private typealias Params = PerMessageDeflate.Parameters

private let negotiationCases: [NegotiationCase] = [
    NegotiationCase(offers: ["permessage-deflate"], response: "permessage-deflate"),
    NegotiationCase(offers: ["PerMessage-Deflate"], response: "permessage-deflate"),
    NegotiationCase(
        offers: ["permessage-deflate; server_no_context_takeover"],
        response: "permessage-deflate; server_no_context_takeover", parameters: Params(serverNoContextTakeover: true)),
    NegotiationCase(
        offers: ["permessage-deflate; client_no_context_takeover"],
        response: "permessage-deflate; client_no_context_takeover", parameters: Params(clientNoContextTakeover: true)),
    NegotiationCase(
        offers: ["permessage-deflate; client_max_window_bits"],
        response: "permessage-deflate; client_max_window_bits=15"),
    NegotiationCase(
        offers: ["permessage-deflate; client_max_window_bits=10"],
        response: "permessage-deflate; client_max_window_bits=10", parameters: Params(clientMaxWindowBits: 10)),
    NegotiationCase(
        offers: ["permessage-deflate; server_max_window_bits=10"],
        response: "permessage-deflate; server_max_window_bits=10", parameters: Params(serverMaxWindowBits: 10)),
    NegotiationCase(
        offers: ["permessage-deflate; server_max_window_bits=\"10\""],
        response: "permessage-deflate; server_max_window_bits=10", parameters: Params(serverMaxWindowBits: 10)),
    NegotiationCase(
        offers: ["permessage-deflate; server_max_window_bits=8"],
        response: "permessage-deflate; server_max_window_bits=8", parameters: Params(serverMaxWindowBits: 8)),
    NegotiationCase(
        offers: ["permessage-deflate;server_no_context_takeover;client_no_context_takeover;client_max_window_bits"],
        response:
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=15",
        parameters: Params(serverNoContextTakeover: true, clientNoContextTakeover: true)),
    // Invalid values, duplicates and unknown parameters decline the offer.
    NegotiationCase(offers: ["permessage-deflate; server_max_window_bits=7"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; server_max_window_bits=16"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; server_max_window_bits=abc"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; server_max_window_bits=010"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; server_max_window_bits"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; client_max_window_bits=7"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; client_max_window_bits=16"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; server_no_context_takeover=1"], response: nil),
    NegotiationCase(
        offers: ["permessage-deflate; server_no_context_takeover; server_no_context_takeover"], response: nil),
    NegotiationCase(
        offers: ["permessage-deflate; client_max_window_bits; client_max_window_bits=10"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; mystery"], response: nil),
    NegotiationCase(offers: ["permessage-deflate; server_max_window_bits=\"1,0\""], response: nil),
    NegotiationCase(offers: ["x-webkit-deflate-frame"], response: nil),
    NegotiationCase(offers: [], response: nil),
    // The first acceptable offer wins; offers may be split over fields.
    NegotiationCase(
        offers: ["permessage-deflate; server_max_window_bits=7, permessage-deflate; client_max_window_bits"],
        response: "permessage-deflate; client_max_window_bits=15"),
    NegotiationCase(
        offers: ["permessage-deflate; bogus", "permessage-deflate; server_no_context_takeover"],
        response: "permessage-deflate; server_no_context_takeover", parameters: Params(serverNoContextTakeover: true)),
    NegotiationCase(
        offers: ["foo; x=\"a,b\", permessage-deflate"], response: "permessage-deflate"),
    // Server configuration.
    NegotiationCase(
        offers: ["permessage-deflate; client_max_window_bits"],
        response:
            "permessage-deflate; server_no_context_takeover; server_max_window_bits=10; client_max_window_bits=10",
        parameters: Params(serverNoContextTakeover: true, serverMaxWindowBits: 10, clientMaxWindowBits: 10),
        configuration: PerMessageDeflate.ServerConfiguration(serverNoContextTakeover: true, maxWindowBits: 10)),
    NegotiationCase(
        offers: ["permessage-deflate; server_max_window_bits=12"],
        response: "permessage-deflate; server_max_window_bits=10", parameters: Params(serverMaxWindowBits: 10),
        configuration: PerMessageDeflate.ServerConfiguration(maxWindowBits: 10)),
]

struct WebSocketNegotiationTests {
    @Test(arguments: negotiationCases)
    func serverNegotiation(_ testCase: NegotiationCase) {
        let result = PerMessageDeflate.negotiate(offers: testCase.offers, configuration: testCase.configuration)
        #expect(result?.response == testCase.response)
        if testCase.response != nil {
            #expect(result?.parameters == testCase.parameters)
        }
    }

    @Test func clientOfferDefaultsToClientMaxWindowBits() {
        #expect(PerMessageDeflate.clientOffer() == "permessage-deflate; client_max_window_bits")
        let offer = PerMessageDeflate.clientOffer(
            PerMessageDeflate.ClientConfiguration(
                serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10,
                clientMaxWindowBits: 12))
        #expect(
            offer
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                + "server_max_window_bits=10; client_max_window_bits=12")
    }

    @Test func clientAndServerAgreeOnTheSameParameters() throws {
        let configurations = [
            PerMessageDeflate.ClientConfiguration(),
            PerMessageDeflate.ClientConfiguration(serverNoContextTakeover: true, serverMaxWindowBits: 9),
            PerMessageDeflate.ClientConfiguration(clientNoContextTakeover: true, clientMaxWindowBits: 11),
            PerMessageDeflate.ClientConfiguration(offersClientMaxWindowBits: false),
        ]
        for client in configurations {
            for server in [
                PerMessageDeflate.ServerConfiguration(),
                PerMessageDeflate.ServerConfiguration(serverNoContextTakeover: true, maxWindowBits: 10),
            ] {
                let offer = PerMessageDeflate.clientOffer(client)
                let (response, serverSide) = try #require(
                    PerMessageDeflate.negotiate(offers: [offer], configuration: server))
                let clientSide = try #require(PerMessageDeflate.acceptServerResponse(response, offered: client))
                #expect(clientSide == serverSide, "\(offer) -> \(response)")
            }
        }
    }

    @Test(arguments: [
        ("permessage-deflate; server_no_context_takeover", "permessage-deflate"),
        ("permessage-deflate; server_max_window_bits=10", "permessage-deflate"),
        ("permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_max_window_bits=11"),
        ("permessage-deflate; client_max_window_bits", "permessage-deflate; client_max_window_bits"),
        ("permessage-deflate; client_max_window_bits=10", "permessage-deflate; client_max_window_bits=12"),
        ("permessage-deflate", "permessage-deflate; client_max_window_bits=10"),
        ("permessage-deflate", "permessage-deflate; unknown"),
        ("permessage-deflate", "permessage-deflate, permessage-deflate"),
        ("permessage-deflate", "x-other"),
        ("permessage-deflate", "permessage-deflate; server_no_context_takeover; server_no_context_takeover"),
    ])
    func clientRejectsAnInvalidServerAnswer(offer: String, answer: String) {
        let offered = clientConfiguration(from: offer)
        #expect(PerMessageDeflate.clientOffer(offered) == offer)
        #expect(PerMessageDeflate.acceptServerResponse(answer, offered: offered) == nil)
    }

    @Test func clientAcceptsAServerThatAddsParameters() {
        let parameters = PerMessageDeflate.acceptServerResponse(
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9",
            offered: PerMessageDeflate.ClientConfiguration(offersClientMaxWindowBits: false))
        #expect(
            parameters
                == Params(serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 9))
    }

    /// The client configuration that produces `offer` (only the shapes used above).
    private func clientConfiguration(from offer: String) -> PerMessageDeflate.ClientConfiguration {
        var configuration = PerMessageDeflate.ClientConfiguration(offersClientMaxWindowBits: false)
        if offer.contains("server_no_context_takeover") { configuration.serverNoContextTakeover = true }
        if offer.contains("server_max_window_bits=10") { configuration.serverMaxWindowBits = 10 }
        if offer.contains("client_max_window_bits") { configuration.offersClientMaxWindowBits = true }
        if offer.contains("client_max_window_bits=10") { configuration.clientMaxWindowBits = 10 }
        return configuration
    }
}
