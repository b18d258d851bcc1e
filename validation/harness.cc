// The ns-3 side of the validation harness: a client and a server node, the HTTP applications of
// the model's five protocols, and a trace of every packet. JIT-compiled by cppyy inside the worker
// process (validation/worker.py); Python callbacks from C++ are not used.
//
// Input: a config text of "key value" lines (validation/sim.py writes it). Output: a text trace,
// one record a line, that validation/analyze.py turns into the model's output fields.
//
// Topology: two links, one per direction, so each direction has its own rate and one-way delay:
//   link A (uplink)   client 10.0.1.1 -> server 10.0.1.2, rate b_up, delay d_up
//   link B (downlink) server 10.0.2.2 -> client 10.0.2.1, rate b_down, delay d_down
// The server reaches 10.0.1.1 through a host route over link B; the client accepts packets for
// 10.0.1.1 on link B (ns-3's weak end-system model). No queue disc; device queues of 10^6 packets.
// The page's other origins (model page.origins) are the same server over the same path, as the model has them:
// each has its own DNS lookup, connections and TLS resumption count (Origin, Lookup, OpenOrigin, OriginConn).

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace llab
{
using namespace ns3;

// Read protected TcpSocketBase state (for the trace) and flush held data (for the close rule).
struct TcpPeek : public TcpSocketBase
{
    static uint32_t Cwnd(const TcpSocketBase* s)
    {
        return (s->*(&TcpPeek::m_tcb))->m_cWnd.Get();
    }

    static uint32_t NextTx(const TcpSocketBase* s)
    {
        return (s->*(&TcpPeek::m_tcb))->m_nextTxSequence.Get().GetValue();
    }

    static uint32_t Una(const TcpSocketBase* s)
    {
        return (s->*(&TcpPeek::m_txBuffer))->HeadSequence().GetValue();
    }

    static uint32_t Tail(const TcpSocketBase* s)
    {
        return (s->*(&TcpPeek::m_txBuffer))->TailSequence().GetValue();
    }

    static uint32_t RWnd(const TcpSocketBase* s)
    {
        return (s->*(&TcpPeek::m_rWnd)).Get();
    }

    static bool NoDelay(const TcpSocketBase* s)
    {
        return s->*(&TcpPeek::m_noDelay);
    }

    // ns-3 ACKs the first data segment after the handshake at once (m_delAckCount is set to
    // DelAckCount on entering ESTABLISHED); the "quickack 0" option undoes that.
    static void ResetDelAck(TcpSocketBase* s)
    {
        s->*(&TcpPeek::m_delAckCount) = 0;
    }

    // ns-3 times its LAST_ACK state from the RTT estimate alone (no MinRto), so a FIN sent while
    // the peer's ACK waits behind a long queue is retransmitted; resetting the estimator to its
    // (huge) InitialEstimation keeps that timer from firing, as no loss is possible.
    static void LongLastAck(TcpSocketBase* s)
    {
        (s->*(&TcpPeek::m_rtt))->Reset();
    }

    static uint32_t Flush(TcpSocketBase* s)
    {
        return (s->*(&TcpPeek::SendPendingData))(true);
    }
};

// TCP Fast Open (RFC 7413) on ns-3's own TCP, which has none: a TcpSocketBase whose SYN can carry the
// client's first bytes and whose server side accepts them, answers with a SYN-ACK acknowledging them,
// hands them to the application and may send data before the handshake completes (RFC 7413 4.2.2),
// as latency_lab/engine/tcp.py's Connection.open and syn_arrived do for tcp.handshake "fast_open". Everything else
// (windows, ACKs, Nagle, delayed ACKs, the close) is TcpSocketBase's. The cookie option (kind 34, an
// 8-byte cookie, RFC 7413 4.1.1) is on the wire as ten 1-byte NOP options: ns-3's TcpHeader refuses
// option kinds it does not know, and the option's only effect here is its 10 bytes (12 after padding,
// latency_lab.mechanisms.connection_setup.FAST_OPEN_OPTION_BYTES). The cookie is taken as valid (the model's "cookie
// from an earlier visit"), so the server always accepts the data.
class TfoSocket : public TcpSocketBase
{
  public:
    TfoSocket() = default;

    TfoSocket(const TfoSocket& o)
        : TcpSocketBase(o),
          m_server(o.m_server)
    {
    }

    // a socket of this class with the congestion control, recovery and RTT estimator the node's
    // TcpL4Protocol gives its own sockets (TcpL4Protocol::CreateSocket, which makes only TcpSocketBase)
    static Ptr<TfoSocket> Make(Ptr<Node> node, bool server)
    {
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        TypeIdValue cc, rec, rtt;
        tcp->GetAttribute("SocketType", cc);
        tcp->GetAttribute("RecoveryType", rec);
        tcp->GetAttribute("RttEstimatorType", rtt);
        ObjectFactory f;
        Ptr<TfoSocket> s = CreateObject<TfoSocket>();
        s->m_server = server;
        s->SetNode(node);
        s->SetTcp(tcp);
        f.SetTypeId(rtt.Get());
        s->SetRtt(f.Create<RttEstimator>());
        f.SetTypeId(cc.Get());
        s->SetCongestionControlAlgorithm(f.Create<TcpCongestionOps>());
        f.SetTypeId(rec.Get());
        s->SetRecoveryAlgorithm(f.Create<TcpRecoveryOps>());
        tcp->AddSocket(s);
        return s;
    }

    // client: open the connection with a SYN carrying the first `bytes` the application has to send
    int ConnectWithData(const Address& to, uint32_t bytes)
    {
        m_client = true;
        m_synBytes = bytes;
        return Connect(to);
    }

  protected:
    Ptr<TcpSocketBase> Fork() override
    {
        return CopyObject<TfoSocket>(this);
    }

    void SendEmptyPacket(uint8_t flags) override
    {
        bool syn = flags & TcpHeader::SYN, ack = flags & TcpHeader::ACK;
        if (syn && ack && m_synData)
        {
            // server: the SYN's data goes into the receive buffer first, so the SYN-ACK acknowledges it
            TcpHeader h = m_synHeader;
            h.SetSequenceNumber(h.GetSequenceNumber() + SequenceNumber32(1));
            m_tcb->m_rxBuffer->Add(m_synData, h);
            m_synData = nullptr;
        }
        if (syn && !ack && m_client)
        {
            SendDataSyn(flags);
            return;
        }
        TcpSocketBase::SendEmptyPacket(flags);
    }

    void CompleteFork(Ptr<Packet> p, const TcpHeader& h, const Address& from, const Address& to) override
    {
        if (!m_server || p->GetSize() == 0)
        {
            TcpSocketBase::CompleteFork(p, h, from, to);
            return;
        }
        m_synData = p;
        m_synHeader = h;
        TcpSocketBase::CompleteFork(p, h, from, to); // SYN_RCVD, the SYN-ACK sent (acknowledging the data)
        // RFC 7413 4.2.2: with a valid cookie the server may send data before the handshake completes:
        // the connection is open for the application now (as ProcessSynRcvd opens it on the handshake ACK)
        m_congestionControl->CongestionStateSet(m_tcb, TcpSocketState::CA_OPEN);
        m_tcb->m_congState = TcpSocketState::CA_OPEN;
        m_state = ESTABLISHED;
        m_connected = true;
        m_retxEvent.Cancel();
        m_tcb->m_highTxMark = ++m_tcb->m_nextTxSequence;
        m_txBuffer->SetHeadSequence(m_tcb->m_nextTxSequence);
        m_awaitHandshakeAck = true;
        m_delAckCount = m_delAckMaxCount; // as ProcessSynRcvd: the first data segment is ACKed at once
        NotifyNewConnectionCreated(this, from);
        NotifyDataRecv();
    }

    void DoForwardUp(Ptr<Packet> packet, const Address& from, const Address& to) override
    {
        TcpHeader h;
        packet->PeekHeader(h);
        uint8_t flags = h.GetFlags() & ~(TcpHeader::PSH | TcpHeader::URG);
        if (m_state == SYN_SENT && m_synBytes > 0 && flags == (TcpHeader::SYN | TcpHeader::ACK))
        {
            // client: a SYN-ACK acknowledging the SYN's data too; ProcessSynSent takes the handshake as
            // complete when the ACK is one past m_nextTxSequence, and sends what follows from there
            NS_ABORT_MSG_IF(h.GetAckNumber() != m_tcb->m_nextTxSequence.Get() + SequenceNumber32(1 + m_synBytes),
                            "Fast Open: the SYN-ACK does not acknowledge the SYN's data");
            m_tcb->m_nextTxSequence = m_tcb->m_nextTxSequence.Get() + SequenceNumber32(m_synBytes);
            m_synBytes = 0;
        }
        else if (m_awaitHandshakeAck && flags == TcpHeader::ACK &&
                 packet->GetSize() == h.GetSerializedSize() && h.GetAckNumber() == m_txBuffer->HeadSequence())
        {
            // server: the handshake's ACK (of the SYN-ACK only) ends the handshake, as in SYN_RCVD; passed
            // to ProcessEstablished it would count as a duplicate ACK of the data already in flight
            m_awaitHandshakeAck = false;
            packet->RemoveHeader(h);
            m_rxTrace(packet, h, this);
            UpdateWindowSize(h);
            return;
        }
        if (flags & TcpHeader::ACK && !(flags & TcpHeader::SYN))
        {
            m_awaitHandshakeAck = false;
        }
        TcpSocketBase::DoForwardUp(packet, from, to);
    }

  private:
    // the client's SYN with data: SendEmptyPacket's SYN (options, retry count, RTT history, timer) with a
    // payload and the cookie option
    void SendDataSyn(uint8_t flags)
    {
        Ptr<Packet> p = ns3::Create<Packet>(m_synBytes);
        TcpHeader header;
        SequenceNumber32 s = m_tcb->m_nextTxSequence;
        header.SetFlags(flags);
        header.SetSequenceNumber(s);
        header.SetAckNumber(m_tcb->m_rxBuffer->NextRxSequence());
        header.SetSourcePort(m_endPoint->GetLocalPort());
        header.SetDestinationPort(m_endPoint->GetPeerPort());
        AddOptions(header);
        if (m_winScalingEnabled) AddOptionWScale(header);
        if (m_sackEnabled) AddOptionSackPermitted(header);
        for (int i = 0; i < 10; i++) header.AppendOption(CreateObject<TcpOptionNOP>());
        NS_ABORT_MSG_IF(m_synCount == 0, "Fast Open: the SYN was not answered");
        int backoff = 0x1 << (m_synRetries - m_synCount);
        m_rto = m_cnTimeout * backoff;
        m_synCount--;
        UpdateRttHistory(s, 0, m_synRetries - 1 != m_synCount);
        header.SetWindowSize(AdvertisedWindowSize(false));
        m_txTrace(p, header, this);
        m_tcp->SendPacket(p, header, m_endPoint->GetLocalAddress(), m_endPoint->GetPeerAddress(), m_boundnetdevice);
        if (m_retxEvent.IsExpired())
        {
            m_retxEvent = Simulator::Schedule(m_rto, &TfoSocket::SendEmptyPacket, this, flags);
        }
    }

    bool m_server = false;            // a listening socket (and its forks) that accepts data on a SYN
    bool m_client = false;            // client: its SYN carries the cookie option (and data, if any)
    uint32_t m_synBytes = 0;          // client: bytes the SYN carries
    Ptr<Packet> m_synData;            // server: the SYN's data, while the fork completes
    TcpHeader m_synHeader;
    bool m_awaitHandshakeAck = false; // server: open before the handshake's ACK arrived
};

struct Setup
{
    double d_up_ms = 35, d_down_ms = 35;
    double b_up = 1544000, b_down = 1544000;
    uint32_t mss = 536, iw = 10, rwnd = 131072, dack_segments = 2, request = 200, header = 200,
             write = 4096, parallel = 4;
    double dack_ms = 200, server_think = 0, client_think = 0, conn_overhead = 0;
    bool nagle = false, handshake = true, header_flush = false;
    bool fast_open = false; // TCP Fast Open on every connection (model tcp.handshake "fast_open")
    uint32_t tfo_syn_max = 0; // the most data a Fast Open SYN carries (latency_lab.mechanisms.connection_setup)
    uint32_t mux_request = 40, frame = 16384; // h2 (latency_lab/protocols/multiplex.py): later requests' size, DATA frame size
    bool quickack = true; // ns-3's own behaviour: ACK the first data segment of a connection at once
    bool pipeline_one = false; // pipelined: the object requests in one write (model http.pipeline_writes "one")
    bool preconnect = false;   // persistent_parallel: the other connections open at the start (model http.preconnect)
    std::string protocol = "http10";
    std::vector<uint64_t> sizes; // html first, then the objects
    // each embedded object's parent (0 the HTML, k the k-th object; model page.object_parents); empty: the HTML
    std::vector<int> parents;
    // the origins beside the HTML's (model page.origins): each one's DNS lookup (ms), preconnect hint and h2
    // coalescing; each embedded object's origin (0 the HTML's, k the k-th; page.object_origins); empty: one origin
    std::vector<double> origin_dns;
    std::vector<int> origin_pre, origin_co, object_origins;
    uint64_t sndbuf = 1u << 20;
    double stop_s = 100000;
    uint32_t spacing_ns = 2;
    // random loss (bench/bench_loss_ns3.py): each packet a device receives is lost with this probability
    double loss_rate = 0;
    uint32_t seed = 1;          // ns-3's RngRun: one independent run per seed
    double rto_min_ms = 1000;   // with loss: MinRto (the profile's), SYN timeout 1 s (RFC 6298)
    // TLS (latency_lab/mechanisms/tls.py): each new connection's handshake flights (bytes, client first, alternating) and
    // the client flight the first request goes with (== the number of flights: after the last one);
    // connections numbered resume_from and later use the resumed handshake.
    std::vector<uint32_t> tls_full, tls_resumed;
    uint32_t tls_full_ready = 0, tls_resumed_ready = 0;
    uint32_t tls_resume_from = 1u << 30;
    // DNS (latency_lab/mechanisms/dns.py): a lookup of dns_ms (one resolver round trip) before the first connection
    double dns_ms = 0;
};

static void
ReadFlights(std::istringstream& in, std::vector<uint32_t>& flights, uint32_t& ready)
{
    size_t n;
    in >> n;
    flights.resize(n);
    for (size_t i = 0; i < n; i++) in >> flights[i];
    in >> ready;
}

static Setup
ParseSetup(const std::string& text)
{
    Setup c;
    std::istringstream in(text);
    std::string key;
    while (in >> key)
    {
        if (key == "d_up_ms") in >> c.d_up_ms;
        else if (key == "d_down_ms") in >> c.d_down_ms;
        else if (key == "b_up") in >> c.b_up;
        else if (key == "b_down") in >> c.b_down;
        else if (key == "mss") in >> c.mss;
        else if (key == "iw") in >> c.iw;
        else if (key == "rwnd") in >> c.rwnd;
        else if (key == "dack_ms") in >> c.dack_ms;
        else if (key == "dack_segments") in >> c.dack_segments;
        else if (key == "nagle") { int v; in >> v; c.nagle = v != 0; }
        else if (key == "handshake") { int v; in >> v; c.handshake = v != 0; }
        else if (key == "fast_open") { int v; in >> v; c.fast_open = v != 0; }
        else if (key == "tfo_syn_max") in >> c.tfo_syn_max;
        else if (key == "mux_request") in >> c.mux_request;
        else if (key == "frame") in >> c.frame;
        else if (key == "request") in >> c.request;
        else if (key == "quickack") { int v; in >> v; c.quickack = v != 0; }
        else if (key == "pipeline_one") { int v; in >> v; c.pipeline_one = v != 0; }
        else if (key == "preconnect") { int v; in >> v; c.preconnect = v != 0; }
        else if (key == "header") in >> c.header;
        else if (key == "header_flush") { int v; in >> v; c.header_flush = v != 0; }
        else if (key == "write") in >> c.write;
        else if (key == "server_think") in >> c.server_think;
        else if (key == "client_think") in >> c.client_think;
        else if (key == "conn_overhead") in >> c.conn_overhead;
        else if (key == "parallel") in >> c.parallel;
        else if (key == "protocol") in >> c.protocol;
        else if (key == "sndbuf") in >> c.sndbuf;
        else if (key == "stop_s") in >> c.stop_s;
        else if (key == "spacing_ns") in >> c.spacing_ns;
        else if (key == "loss_rate") in >> c.loss_rate;
        else if (key == "seed") in >> c.seed;
        else if (key == "rto_min_ms") in >> c.rto_min_ms;
        else if (key == "tls_full") ReadFlights(in, c.tls_full, c.tls_full_ready);
        else if (key == "tls_resumed") ReadFlights(in, c.tls_resumed, c.tls_resumed_ready);
        else if (key == "tls_resume_from") in >> c.tls_resume_from;
        else if (key == "dns_ms") in >> c.dns_ms;
        else if (key == "parents")
        {
            size_t n;
            in >> n;
            c.parents.resize(n);
            for (size_t i = 0; i < n; i++) in >> c.parents[i];
        }
        else if (key == "origins")
        {
            size_t n;
            in >> n;
            c.origin_dns.resize(n);
            c.origin_pre.resize(n);
            c.origin_co.resize(n);
            for (size_t i = 0; i < n; i++) in >> c.origin_dns[i] >> c.origin_pre[i] >> c.origin_co[i];
        }
        else if (key == "object_origins")
        {
            size_t n;
            in >> n;
            c.object_origins.resize(n);
            for (size_t i = 0; i < n; i++) in >> c.object_origins[i];
        }
        else if (key == "sizes")
        {
            size_t n;
            in >> n;
            c.sizes.resize(n);
            for (size_t i = 0; i < n; i++) in >> c.sizes[i];
        }
        else
        {
            NS_FATAL_ERROR("unknown config key " << key);
        }
    }
    return c;
}

static Time
Ms(double ms)
{
    return NanoSeconds(static_cast<int64_t>(ms * 1e6 + 0.5));
}

struct Conn
{
    int id = -1;
    int origin = 0;         // 0 the HTML's, k the k-th other origin (model page.origins)
    uint32_t tls_index = 0; // connections to the same origin opened before it (TLS resumption, tls.resumed)
    std::function<void(int)> on_ready; // a connection to another origin: what it does once ready (else OnOpen's)
    Ptr<Socket> cs; // client socket
    Ptr<Socket> ss; // server socket (accepted)
    uint16_t port = 0;
    bool close_after = false;
    bool opened = false;
    bool pooled = false;
    bool tfo = false;        // opened with TCP Fast Open
    bool tfo_syn = false;    // Fast Open: the SYN has not left yet; writes wait for it
    uint64_t tfo_bytes = 0;  // Fast Open: bytes written before the SYN
    // h2 streams (latency_lab/protocols/multiplex.py's Mux): each request's end in the client's application bytes
    std::vector<uint64_t> req_ends;
    std::vector<int> req_names;
    uint64_t req_end = 0, down_end = 0;
    size_t read = 0;     // requests the server has taken
    uint32_t batches = 0;
    std::vector<int> pending_names; // names to request once open (new connections)
    // client side
    std::vector<std::pair<uint64_t, int>> expect; // (cumulative end offset, name)
    size_t expect_i = 0;
    uint64_t expect_end = 0;
    uint64_t crcv = 0;
    std::vector<std::vector<int>> requests;
    // server side
    uint64_t srcv = 0;
    uint32_t served = 0;
    bool has_last_write = false;
    Time last_write;
    // application write spacing (ns-3 defers SendPendingData by one time step)
    Time next_write_c, next_write_s;
    // bytes each side has written (0: client, 1: server), and where its TLS handshake bytes lie
    uint64_t wrote[2] = {0, 0};
    std::vector<std::pair<uint64_t, uint64_t>> hs[2];
    // TLS handshake (latency_lab/protocols/secure_setup.py's Dialogue)
    bool tls = false;
    const std::vector<uint32_t>* flights = nullptr;
    uint32_t ready = 0;
    size_t k = 0;                // the next flight to write
    std::vector<uint64_t> ends;  // each written flight's end offset in its writer's stream
    uint32_t held = 0;           // a client flight that goes with the first request
};

// Bytes of the peer's TLS handshake among the first rcv bytes received.
static uint64_t
HandshakeBytes(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t rcv)
{
    uint64_t skip = 0;
    for (const auto& r : ranges)
    {
        if (r.first >= rcv) break;
        skip += std::min(r.second, rcv) - r.first;
    }
    return skip;
}

class Sim
{
  public:
    explicit Sim(const Setup& c)
        : m_c(c)
    {
    }

    std::string Run();

  private:
    Setup m_c;
    std::ostringstream m_out;
    uint64_t m_seq = 0;
    Time m_t0;
    bool m_started = false;
    Ptr<Node> m_client, m_server;
    Ipv4Address m_caddr, m_saddr;
    std::deque<Conn> m_conns; // deque: references stay valid when a connection is added
    std::map<uint16_t, int> m_port2conn;
    std::map<const Socket*, int> m_sock2conn;
    std::vector<int64_t> m_start, m_end;
    std::vector<int> m_objconn;
    // the objects each object's arrival reveals, in index order (latency_lab/protocols/base.py, Session.reveals)
    std::vector<std::vector<int>> m_reveals;
    std::vector<uint32_t> m_busy; // http10_parallel: object connections open, by origin
    // the origins beside the HTML's (latency_lab/protocols/base.py, OriginState): the DNS lookup, the persistent
    // connection (opening or open), the callers waiting for it, whether a protocol that opens one connection per
    // object took the preconnected one, and the connections opened to it (TLS resumption counts per server)
    struct Origin
    {
        double dns_ms = 0;
        bool pre = false, co = false;
        bool looked = false;
        Time lookup_end;
        bool opening = false, ready = false, taken = false;
        int conn = -1;
        uint32_t opened = 0;
        std::vector<std::function<void(int)>> waiters;
        // persistent_parallel (persistent_parallel.py's Pool of another origin): waiting objects, idle connections,
        // connections opened
        std::vector<int> pending, free;
        uint32_t conns = 0;
    };
    std::vector<Origin> m_origins; // the k-th at k - 1
    std::vector<int> m_origin_of;  // each object's origin (the HTML's 0)
    uint32_t m_html_opened = 0;    // connections opened to the HTML's origin
    std::vector<int> m_pending; // http10_parallel: names not yet launched; persistent_parallel: not yet asked for
    std::vector<int> m_free;    // persistent_parallel: open connections with no request outstanding
    uint32_t m_extra = 0;       // persistent_parallel: connections opened beside the HTML's
    int m_done_count = 0;
    int m_pool_next = 0;
    int m_pool_accepted = 0;
    int m_pool_size = 0;
    uint64_t m_drops = 0;
    // DNS: the resolver's and the client's UDP sockets, and the fetch waiting for the answer
    static constexpr uint32_t kDnsQueryBytes = 40, kDnsAnswerBytes = 60; // latency_lab/mechanisms/dns.py
    Ptr<Socket> m_dns_client, m_dns_server;
    bool m_dns_done = false, m_dns_close_after = false;
    std::vector<int> m_dns_names;
    // Per-packet records. Each direction is one FIFO link without loss, so the k-th packet queued
    // is the k-th to start serialization and the k-th to arrive (packet uids are not unique: TCP
    // segments cut from one application write share its uid).
    struct Pkt
    {
        int dir;
        int64_t tq = -1, ts = -1, te = -1, ta = -1;
        uint64_t sq = 0, sa = 0;
        uint32_t size = 0, payload = 0, seq = 0, ack = 0, win = 0;
        uint16_t sport = 0, dport = 0;
        uint8_t flags = 0;
    };

    std::vector<Pkt> m_pkts[2];
    Ptr<NetDevice> m_unused[2];
    size_t m_nts[2] = {0, 0}, m_nte[2] = {0, 0}, m_nta[2] = {0, 0};

    // Absolute simulation time (ns); analyze.py subtracts the page's start (T0).
    static int64_t Now()
    {
        return Simulator::Now().GetNanoSeconds();
    }

    // ---------------------------------------------------------------- tracing
    static void Parse(Ptr<const Packet> p, Pkt& k)
    {
        Ptr<Packet> c = p->Copy();
        k.size = c->GetSize();
        PppHeader ppp;
        c->RemoveHeader(ppp);
        Ipv4Header ip;
        c->RemoveHeader(ip);
        TcpHeader tcp;
        c->RemoveHeader(tcp);
        k.payload = c->GetSize();
        k.seq = tcp.GetSequenceNumber().GetValue();
        k.ack = tcp.GetAckNumber().GetValue();
        k.win = tcp.GetWindowSize();
        k.sport = tcp.GetSourcePort();
        k.dport = tcp.GetDestinationPort();
        k.flags = tcp.GetFlags();
    }

    void MacTx(int dir, Ptr<const Packet> p)
    {
        Pkt k;
        k.dir = dir;
        Parse(p, k);
        k.tq = Now();
        k.sq = ++m_seq;
        m_pkts[dir].push_back(k);
    }

    void TxBegin(int dir)
    {
        NS_ABORT_IF(m_nts[dir] >= m_pkts[dir].size());
        m_pkts[dir][m_nts[dir]++].ts = Now();
    }

    void TxEnd(int dir)
    {
        NS_ABORT_IF(m_nte[dir] >= m_pkts[dir].size());
        m_pkts[dir][m_nte[dir]++].te = Now();
    }

    void RxEnd(int dir)
    {
        NS_ABORT_IF(m_nta[dir] >= m_pkts[dir].size());
        Pkt& k = m_pkts[dir][m_nta[dir]++];
        k.ta = Now();
        k.sa = ++m_seq;
    }

    void MacTxUp(Ptr<const Packet> p) { MacTx(0, p); }
    void MacTxDown(Ptr<const Packet> p) { MacTx(1, p); }
    void TxBeginUp(Ptr<const Packet> p) { TxBegin(0); }
    void TxBeginDown(Ptr<const Packet> p) { TxBegin(1); }
    void TxEndUp(Ptr<const Packet> p) { TxEnd(0); }
    void TxEndDown(Ptr<const Packet> p) { TxEnd(1); }
    void RxEndUp(Ptr<const Packet> p) { RxEnd(0); }
    void RxEndDown(Ptr<const Packet> p) { RxEnd(1); }

    void Drop(Ptr<const Packet> p)
    {
        m_drops++;
        m_out << "DROP " << Now() << " device\n";
    }

    void IpDrop(const Ipv4Header& h, Ptr<const Packet> p, Ipv4L3Protocol::DropReason r, Ptr<Ipv4> ip,
                uint32_t iface)
    {
        m_drops++;
        m_out << "DROP " << Now() << " ip " << static_cast<int>(r) << "\n";
    }

    // Sender state just before a segment is processed: for telling window stalls from Nagle stalls.
    void SockRx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
    {
        auto it = m_sock2conn.find(PeekPointer(s));
        if (it == m_sock2conn.end()) return;
        const Conn& c = m_conns[it->second];
        int side = (PeekPointer(c.cs) == PeekPointer(s)) ? 0 : 1;
        const TcpSocketBase* b = PeekPointer(s);
        m_out << "RXS " << Now() << " " << ++m_seq << " " << c.id << " " << side << " " << h.GetAckNumber().GetValue()
              << " " << TcpPeek::Cwnd(b) << " " << TcpPeek::RWnd(b) << " " << TcpPeek::Una(b) << " "
              << TcpPeek::NextTx(b) << " " << TcpPeek::Tail(b) << " " << (TcpPeek::NoDelay(b) ? 0 : 1) << "\n";
    }

    void Track(int cid, Ptr<Socket> s)
    {
        m_sock2conn[PeekPointer(s)] = cid;
        s->TraceConnectWithoutContext("Rx", MakeCallback(&Sim::SockRx, this));
    }

    // ------------------------------------------------------------ connections
    int NewConn(bool close_after, int origin = 0)
    {
        int id = static_cast<int>(m_conns.size());
        m_conns.emplace_back();
        Conn& c = m_conns.back();
        c.id = id;
        c.close_after = close_after;
        c.origin = origin;
        c.tls_index = origin == 0 ? m_html_opened++ : m_origins[origin - 1].opened++;
        // Fast Open to the HTML's origin only: another origin's connections use the three-way handshake, as the
        // model's (Session.origin_mode: no cookie for that server); the server takes a plain SYN as any listener
        bool tfo = m_c.fast_open && m_c.handshake && origin == 0;
        Ptr<Socket> s = tfo ? Ptr<Socket>(TfoSocket::Make(m_client, false))
                            : Socket::CreateSocket(m_client, TcpSocketFactory::GetTypeId());
        s->Bind(InetSocketAddress(m_caddr, 0));
        Address a;
        s->GetSockName(a);
        c.port = InetSocketAddress::ConvertFrom(a).GetPort();
        m_port2conn[c.port] = id;
        c.cs = s;
        Track(id, s);
        s->SetConnectCallback(MakeCallback(&Sim::Connected, this), MakeCallback(&Sim::ConnectFailed, this));
        s->SetRecvCallback(MakeCallback(&Sim::ClientRecv, this));
        s->SetCloseCallbacks(MakeCallback(&Sim::ClientPeerClosed, this), MakeCallback(&Sim::ClientError, this));
        if (tfo)
        {
            c.tfo = true;
            c.tfo_syn = true;
            return id; // TfoStart opens it
        }
        s->Connect(InetSocketAddress(m_saddr, 80));
        m_out << "CONN " << Now() << " " << id << " " << c.port << "\n";
        return id;
    }

    // TCP Fast Open (latency_lab.protocols.base.Session._ttcp): the application starts at once, as on an open
    // connection; what it writes waits for the SYN, which leaves after the client's think time and takes
    // what fits beside its options (tfo_syn_max, RFC 7413 4.2); the rest follows the SYN-ACK.
    void TfoStart(int id)
    {
        StartApplication(id);
        Simulator::Schedule(Ms(m_c.client_think), &Sim::TfoSyn, this, id);
    }

    void TfoSyn(int id)
    {
        Conn& c = m_conns[id];
        c.tfo_syn = false;
        uint32_t first = static_cast<uint32_t>(std::min<uint64_t>(c.tfo_bytes, m_c.tfo_syn_max));
        m_out << "CONN " << Now() << " " << id << " " << c.port << "\n";
        DynamicCast<TfoSocket>(c.cs)->ConnectWithData(InetSocketAddress(m_saddr, 80), first);
        if (c.tfo_bytes > first)
        {
            uint32_t rest = static_cast<uint32_t>(c.tfo_bytes - first);
            int sent = c.cs->Send(Create<Packet>(rest)); // kept in the buffer until the SYN-ACK
            NS_ABORT_MSG_IF(sent != static_cast<int>(rest), "Send() refused " << rest << " bytes");
        }
    }

    void Connected(Ptr<Socket> s)
    {
        int id = m_sock2conn[PeekPointer(s)];
        Conn& c = m_conns[id];
        c.opened = true;
        if (!m_c.quickack) TcpPeek::ResetDelAck(DynamicCast<TcpSocketBase>(s).operator->());
        if (!m_started) return; // a pooled connection (handshake "none"): used later
        if (c.tfo) return;      // Fast Open: the application started before the SYN (TfoStart)
        StartApplication(id);
    }

    // The connection is open for the application: the TLS handshake first, if any, then the protocol.
    void StartApplication(int id)
    {
        if (!m_c.tls_full.empty())
        {
            TlsStart(id);
            return;
        }
        m_out << "OPEN " << Now() << " " << id << "\n";
        OnOpen(id);
    }

    // ------------------------------------------------------------------- TLS
    // The handshake as the model runs it (latency_lab/protocols/secure_setup.py, Dialogue): each side writes its
    // next flight once the other's previous flight has fully arrived; the client flight named
    // "ready" is held and written with the first request (one write), or the request follows the
    // last flight's arrival. Connection n resumes if n >= tls_resume_from (latency_lab/mechanisms/tls.py, resumed).
    void TlsStart(int id)
    {
        Conn& c = m_conns[id];
        bool resumed = c.tls_index >= m_c.tls_resume_from;
        c.tls = true;
        c.flights = resumed ? &m_c.tls_resumed : &m_c.tls_full;
        c.ready = resumed ? m_c.tls_resumed_ready : m_c.tls_full_ready;
        m_out << "TLS " << Now() << " " << id << " " << (resumed ? 1 : 0) << "\n";
        TlsClientFlight(id);
    }

    void TlsWrite(int id, bool server, uint32_t bytes)
    {
        Conn& c = m_conns[id];
        int side = server ? 1 : 0;
        c.hs[side].emplace_back(c.wrote[side], c.wrote[side] + bytes);
        c.wrote[side] += bytes;
        c.ends.push_back(c.wrote[side]);
        QueueWrite(id, server, Simulator::Now(), bytes, 0);
    }

    void TlsClientFlight(int id)
    {
        Conn& c = m_conns[id];
        size_t k = c.k++;
        uint32_t bytes = (*c.flights)[k];
        if (k == c.ready)
        {
            // held in the socket's buffer until the first request is written, and sent with it
            c.hs[0].emplace_back(c.wrote[0], c.wrote[0] + bytes);
            c.wrote[0] += bytes;
            c.ends.push_back(c.wrote[0]);
            c.held = bytes;
            m_out << "OPEN " << Now() << " " << id << "\n";
            OnOpen(id);
        }
        else
        {
            TlsWrite(id, false, bytes);
        }
    }

    void TlsServer(int id)
    {
        Conn& c = m_conns[id];
        size_t k = c.k;
        if (k < c.flights->size() && k % 2 == 1 && c.srcv >= c.ends[k - 1])
        {
            c.k = k + 1;
            TlsWrite(id, true, (*c.flights)[k]);
        }
    }

    void TlsClient(int id)
    {
        Conn& c = m_conns[id];
        size_t k = c.k, n = c.flights->size();
        if (k == 0 || k % 2 == 1 || k > n || c.crcv < c.ends[k - 1]) return;
        if (k < n)
        {
            TlsClientFlight(id);
        }
        else if (k == c.ready)
        {
            c.k = k + 1;
            m_out << "OPEN " << Now() << " " << id << "\n";
            OnOpen(id);
        }
    }

    // ------------------------------------------------------------------- DNS
    // The lookup before the session's first connection (latency_lab/mechanisms/dns.py): a UDP query to a resolver
    // node one dns_ms round trip away, answered at once; the connection opens when the answer arrives.
    void DnsLookup(const std::vector<int>& names, bool close_after)
    {
        m_dns_names = names;
        m_dns_close_after = close_after;
        m_out << "DNSQ " << Now() << "\n";
        m_dns_client->Send(Create<Packet>(kDnsQueryBytes));
    }

    void DnsServe(Ptr<Socket> s)
    {
        Address from;
        Ptr<Packet> p;
        while ((p = s->RecvFrom(from)))
        {
            s->SendTo(Create<Packet>(kDnsAnswerBytes), 0, from);
        }
    }

    void DnsAnswer(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
        }
        m_out << "DNSA " << Now() << "\n";
        m_dns_done = true;
        Fetch(m_dns_names, m_dns_close_after);
    }

    void ConnectFailed(Ptr<Socket> s)
    {
        NS_FATAL_ERROR("connect failed");
    }

    void ClientError(Ptr<Socket> s)
    {
        m_out << "ERROR " << Now() << " client socket error on connection " << m_sock2conn[PeekPointer(s)]
              << " errno " << static_cast<int>(s->GetErrno()) << "\n";
    }

    void ClientPeerClosed(Ptr<Socket> s)
    {
        // The model's client closes as soon as the server's FIN arrives.
        int id = m_sock2conn[PeekPointer(s)];
        m_out << "CCLOSE " << Now() << " " << id << "\n";
        // ShutdownSend() here makes ns-3 send one FIN+ACK (as the model's client does) instead of
        // an ACK of the FIN followed by a FIN.
        TcpPeek::LongLastAck(DynamicCast<TcpSocketBase>(s).operator->());
        s->ShutdownSend();
        s->Close();
    }

    // Open a connection for names (HTTP/1.0 style), or take a pre-opened one (handshake none).
    int Fetch(const std::vector<int>& names, bool close_after)
    {
        // HTTP/1.0: an object starts when its connection is opened; otherwise at its request
        if (close_after)
            for (int n : names)
                if (m_start[n] < 0) m_start[n] = Now();
        if (m_c.dns_ms > 0 && !m_dns_done)
        {
            DnsLookup(names, close_after);
            return -1;
        }
        int id;
        if (!m_c.handshake)
        {
            id = m_pool_next++;
            NS_ABORT_MSG_IF(id >= static_cast<int>(m_conns.size()), "connection pool exhausted");
            m_conns[id].close_after = close_after;
            m_conns[id].pending_names = names;
            m_out << "OPEN " << Now() << " " << id << "\n";
            OnOpen(id);
            return id;
        }
        id = NewConn(close_after);
        m_conns[id].pending_names = names;
        if (m_conns[id].tfo) TfoStart(id);
        return id;
    }

    void OnOpen(int id)
    {
        Conn& c = m_conns[id];
        if (c.on_ready)
        {
            std::function<void(int)> then = c.on_ready;
            c.on_ready = nullptr;
            then(id);
            return;
        }
        if (m_c.protocol == "http10" || m_c.protocol == "http10_parallel")
        {
            Request(id, c.pending_names, Think());
        }
        else if (m_c.protocol == "getall")
        {
            // the HTML and its origin's objects (every object with one origin), in one response
            std::vector<int> all;
            for (size_t i = 0; i < m_c.sizes.size(); i++)
                if (m_origin_of[i] == 0) all.push_back(static_cast<int>(i));
            Request(id, all, Think());
        }
        else if (m_c.protocol == "h2")
        {
            StreamRequests(id, {0}, Think());
        }
        else if (m_c.protocol == "persistent_parallel")
        {
            if (c.pending_names.empty()) Ready(id); // preconnected
            else Request(id, c.pending_names, Think());
        }
        else // persistent, pipelined: the HTML first
        {
            Request(id, {0}, Think());
        }
    }

    Time Think() const
    {
        return Simulator::Now() + Ms(m_c.client_think);
    }

    void Request(int id, const std::vector<int>& names, Time at)
    {
        Conn& c = m_conns[id];
        c.requests.push_back(names);
        for (int n : names)
        {
            m_objconn[n] = id;
            if (m_start[n] < 0) m_start[n] = at.GetNanoSeconds();
            c.expect_end += m_c.sizes[n] + m_c.header;
            c.expect.emplace_back(c.expect_end, n);
        }
        // a TLS client flight held for the first request goes with it, in one write
        c.wrote[0] += m_c.request;
        QueueWrite(id, false, at, m_c.request + c.held, 0);
        c.held = 0;
    }

    // pipelined with http.pipeline_writes "one" (latency_lab/protocols/base.py, Session.requests_in_one_write): one
    // request for each of names, all in one write (libwww buffers its requests, seed 004)
    void RequestsInOneWrite(int id, const std::vector<int>& names, Time at)
    {
        Conn& c = m_conns[id];
        for (int n : names)
        {
            c.requests.push_back({n});
            m_objconn[n] = id;
            if (m_start[n] < 0) m_start[n] = at.GetNanoSeconds();
            c.expect_end += m_c.sizes[n] + m_c.header;
            c.expect.emplace_back(c.expect_end, n);
        }
        c.wrote[0] += static_cast<uint64_t>(m_c.request) * names.size();
        QueueWrite(id, false, at, static_cast<uint32_t>(m_c.request * names.size() + c.held), 0);
        c.held = 0;
    }

    // h2 (latency_lab/protocols/multiplex.py, Mux.requests): the client writes requests for names at once, one stream each,
    // the connection's first request of request_bytes and later ones of mux_request (HPACK), in one write.
    void StreamRequests(int id, const std::vector<int>& names, Time at)
    {
        Conn& c = m_conns[id];
        uint64_t bytes = 0;
        for (int n : names)
        {
            m_objconn[n] = id;
            if (m_start[n] < 0) m_start[n] = at.GetNanoSeconds();
            uint32_t size = c.req_names.empty() ? m_c.request : m_c.mux_request;
            bytes += size;
            c.req_end += size;
            c.req_ends.push_back(c.req_end);
            c.req_names.push_back(n);
        }
        c.wrote[0] += bytes;
        QueueWrite(id, false, at, static_cast<uint32_t>(bytes + c.held), 0);
        c.held = 0;
    }

    // h2 (Mux.server_data): the requests an arrival completes are one batch, answered after one think time
    // (and the connection overhead before the first), after what the server wrote before.
    void StreamServe(int id, uint64_t app)
    {
        Conn& c = m_conns[id];
        std::vector<int> batch;
        while (c.read < c.req_ends.size() && app >= c.req_ends[c.read])
        {
            batch.push_back(c.req_names[c.read++]);
        }
        if (batch.empty()) return;
        uint32_t idx = c.batches++;
        Time w = ServeAt(c, idx == 0);
        Simulator::Schedule(w - Simulator::Now(), &Sim::StreamRespond, this, id, idx, batch);
    }

    // h2 (Mux._write_responses): the batch's responses (header + body each) as DATA frames of `frame` bytes,
    // round-robin over the streams; the frames go to the socket together (one write), and each stream is
    // complete at its last frame's end in the server's stream of bytes.
    void StreamRespond(int id, uint32_t idx, std::vector<int> names)
    {
        Conn& c = m_conns[id];
        m_out << "RESP " << Now() << " " << id << " " << idx << "\n";
        std::vector<uint64_t> left;
        for (int n : names) left.push_back(m_c.sizes[n] + m_c.header);
        uint64_t total = 0;
        bool more = true;
        while (more)
        {
            more = false;
            for (size_t i = 0; i < names.size(); i++)
            {
                if (left[i] == 0) continue;
                uint64_t chunk = std::min<uint64_t>(m_c.frame, left[i]);
                left[i] -= chunk;
                total += chunk;
                c.down_end += chunk;
                if (left[i] == 0) c.expect.emplace_back(c.down_end, names[i]);
                more = more || left[i] > 0;
            }
        }
        ServerWrite(id, Simulator::Now(), static_cast<uint32_t>(total));
    }

    // Application writes: each its own Send(), spaced so ns-3 runs SendPendingData once per write
    // (ns-3 defers it by one time step, so writes at the same instant would merge).
    void QueueWrite(int id, bool server, Time at, uint32_t bytes, int kind)
    {
        Conn& c = m_conns[id];
        Time& nw = server ? c.next_write_s : c.next_write_c;
        Time t = std::max(at, nw);
        nw = t + NanoSeconds(m_c.spacing_ns);
        Simulator::Schedule(t - Simulator::Now(), &Sim::DoWrite, this, id, server, bytes, kind);
    }

    void DoWrite(int id, bool server, uint32_t bytes, int kind)
    {
        Conn& c = m_conns[id];
        Ptr<Socket> s = server ? c.ss : c.cs;
        if (kind == 1)
        {
            // Close: BSD and Linux send what Nagle holds with the FIN (seed 000, 2.3); ns-3 would
            // keep holding it, so Nagle is switched off and the held data flushed at once.
            m_out << "CLOSE " << Now() << " " << ++m_seq << " " << id << " " << (server ? 1 : 0) << "\n";
            s->SetAttribute("TcpNoDelay", BooleanValue(true));
            s->Close();
            TcpPeek::Flush(DynamicCast<TcpSocketBase>(s).operator->());
            return;
        }
        if (!server && c.tfo_syn)
        {
            c.tfo_bytes += bytes; // Fast Open: the SYN takes it (TfoSyn)
        }
        else
        {
            int sent = s->Send(Create<Packet>(bytes));
            NS_ABORT_MSG_IF(sent != static_cast<int>(bytes), "Send() refused " << bytes << " bytes");
        }
        m_out << "W " << Now() << " " << ++m_seq << " " << id << " " << (server ? 1 : 0) << " " << bytes << "\n";
    }

    // ------------------------------------------------------------------ server
    bool AcceptRequest(Ptr<Socket> s, const Address& from)
    {
        return true;
    }

    void Accepted(Ptr<Socket> s, const Address& from)
    {
        uint16_t port = InetSocketAddress::ConvertFrom(from).GetPort();
        auto it = m_port2conn.find(port);
        NS_ABORT_MSG_IF(it == m_port2conn.end(), "unknown client port " << port);
        Conn& c = m_conns[it->second];
        c.ss = s;
        Track(c.id, s);
        if (!m_c.quickack) TcpPeek::ResetDelAck(DynamicCast<TcpSocketBase>(s).operator->());
        s->SetRecvCallback(MakeCallback(&Sim::ServerRecv, this));
        m_out << "ACCEPT " << Now() << " " << c.id << "\n";
        if (!m_started && !m_c.handshake)
        {
            if (++m_pool_accepted == m_pool_size)
            {
                // every pooled connection is open and the links are idle: the page starts
                Simulator::Schedule(MilliSeconds(1), &Sim::Start, this);
            }
        }
    }

    void ServerRecv(Ptr<Socket> s)
    {
        int id = m_sock2conn[PeekPointer(s)];
        Conn& c = m_conns[id];
        Ptr<Packet> p;
        while (s->GetRxAvailable() > 0 && (p = s->Recv()))
        {
            c.srcv += p->GetSize();
        }
        if (c.tls) TlsServer(id);
        uint64_t app = c.srcv - HandshakeBytes(c.hs[0], c.srcv);
        if (m_c.protocol == "h2")
        {
            StreamServe(id, app);
            return;
        }
        uint32_t done = static_cast<uint32_t>(app / m_c.request);
        while (c.served < done)
        {
            uint32_t idx = c.served++;
            Time w = ServeAt(c, idx == 0);
            bool last = c.close_after && idx == c.requests.size() - 1;
            Simulator::Schedule(w - Simulator::Now(), &Sim::ServerRespond, this, id, idx, last);
        }
    }

    // When the server writes its next answer: its think time (and the connection overhead before the
    // connection's first) after the later of now and its previous write.
    Time ServeAt(Conn& c, bool first)
    {
        Time extra = Ms(m_c.server_think);
        if (first) extra += Ms(m_c.conn_overhead);
        Time begin = Simulator::Now();
        if (c.has_last_write && c.last_write > begin) begin = c.last_write;
        c.has_last_write = true;
        c.last_write = begin + extra;
        return c.last_write;
    }

    void ServerRespond(int id, uint32_t idx, bool close)
    {
        Conn& c = m_conns[id];
        Time now = Simulator::Now();
        m_out << "RESP " << Now() << " " << id << " " << idx << "\n";
        for (int n : c.requests[idx])
        {
            uint64_t body = m_c.sizes[n];
            uint64_t total = body;
            if (m_c.header_flush)
            {
                if (m_c.header > 0) ServerWrite(id, now, m_c.header);
            }
            else
            {
                total += m_c.header;
            }
            if (total > 0)
            {
                if (m_c.write == 0 || total <= m_c.write)
                {
                    ServerWrite(id, now, static_cast<uint32_t>(total));
                }
                else
                {
                    uint64_t nfull = (total - 1) / m_c.write;
                    for (uint64_t k = 0; k < nfull; k++) ServerWrite(id, now, m_c.write);
                    ServerWrite(id, now, static_cast<uint32_t>(total - nfull * m_c.write));
                }
            }
        }
        if (close) QueueWrite(id, true, now, 0, 1);
    }

    void ServerWrite(int id, Time at, uint32_t bytes)
    {
        m_conns[id].wrote[1] += bytes;
        QueueWrite(id, true, at, bytes, 0);
    }

    // ------------------------------------------------------------------ client
    void ClientRecv(Ptr<Socket> s)
    {
        int id = m_sock2conn[PeekPointer(s)];
        Conn& c = m_conns[id];
        Ptr<Packet> p;
        while (s->GetRxAvailable() > 0 && (p = s->Recv()))
        {
            c.crcv += p->GetSize();
        }
        if (c.tls) TlsClient(id);
        uint64_t app = c.crcv - HandshakeBytes(c.hs[1], c.crcv);
        while (c.expect_i < c.expect.size() && app >= c.expect[c.expect_i].first)
        {
            int n = c.expect[c.expect_i].second;
            c.expect_i++;
            m_end[n] = Now();
            m_done_count++;
            Done(id, n);
        }
    }

    // ------------------------------------------------------------ other origins (issue 28)
    // latency_lab/protocols/base.py, Session.lookup: then() once origin o's DNS lookup has ended; the first caller
    // starts it (a delay of dns_ms, its packets not on the path, as the model leaves them out), later ones wait
    // for its end; the address is then cached.
    void Lookup(int o, std::function<void()> then)
    {
        Origin& st = m_origins[o - 1];
        if (st.dns_ms <= 0)
        {
            then();
            return;
        }
        if (!st.looked)
        {
            st.looked = true;
            st.lookup_end = Simulator::Now() + Ms(st.dns_ms);
            m_out << "DNSO " << Now() << " " << o << "\n";
        }
        if (st.lookup_end > Simulator::Now())
            Simulator::Schedule(st.lookup_end - Simulator::Now(), [then]() { then(); });
        else
            then();
    }

    // Session.open_origin: a connection to origin o (after its lookup); then(id) once it is ready (TCP, TLS)
    void OpenOrigin(int o, bool close_after, std::function<void(int)> then)
    {
        Lookup(o, [this, o, close_after, then]() {
            int id = NewConn(close_after, o);
            m_conns[id].on_ready = then;
        });
    }

    // Session.origin_conn: then(id) on origin o's persistent connection: now if ready, when it is if opening,
    // else after opening it
    void OriginConn(int o, std::function<void(int)> then)
    {
        Origin& st = m_origins[o - 1];
        if (st.opening && st.ready)
        {
            then(st.conn);
            return;
        }
        st.waiters.push_back(then);
        if (!st.opening)
        {
            st.opening = true;
            OpenOrigin(o, false, [this, o](int id) { OriginReady(o, id); });
        }
    }

    void OriginReady(int o, int id)
    {
        Origin& st = m_origins[o - 1];
        st.conn = id;
        st.ready = true;
        std::vector<std::function<void(int)>> waiters;
        waiters.swap(st.waiters);
        for (auto& then : waiters) then(id);
    }

    // Session.origin_fetch (HTTP/1.0 to another origin): on its preconnected connection if unused, else a new one
    void OriginFetch(int n)
    {
        int o = m_origin_of[n];
        Origin& st = m_origins[o - 1];
        if (m_start[n] < 0) m_start[n] = Now();
        auto ask = [this, n](int id) { Request(id, {n}, Think()); };
        if (st.opening && !st.taken)
        {
            st.taken = true;
            OriginConn(o, ask);
            return;
        }
        OpenOrigin(o, true, ask);
    }

    // Session.preconnect_origins: the preconnected origins' connections open at the page's start; on h2 a
    // coalesced origin only starts its lookup
    void PreconnectOrigins(bool close_after, bool streams)
    {
        for (size_t k = 0; k < m_origins.size(); k++)
        {
            int o = static_cast<int>(k) + 1;
            Origin& st = m_origins[k];
            if (st.pre && streams && st.co)
            {
                Lookup(o, []() {});
                continue;
            }
            if (st.pre && (!st.opening || st.taken))
            {
                st.opening = true;
                st.ready = st.taken = false;
                st.waiters.clear();
                OpenOrigin(o, close_after, [this, o](int id) { OriginReady(o, id); });
            }
        }
    }

    // Session.by_origin: names grouped by origin, the HTML's first (each group in order)
    std::map<int, std::vector<int>> ByOrigin(const std::vector<int>& names) const
    {
        std::map<int, std::vector<int>> groups;
        for (int n : names) groups[m_origin_of[n]].push_back(n);
        return groups;
    }

    void Done(int id, int n)
    {
        const std::string& p = m_c.protocol;
        int total = static_cast<int>(m_c.sizes.size());
        // the objects this arrival reveals (page.object_parents): every other one after the HTML by default
        const std::vector<int>& found = m_reveals[n];
        int html = m_objconn[0]; // the HTML's connection (persistent, pipelined, h2: its origin's objects' too)
        if (p == "http10")
        {
            // one object at a time in index order: every parent comes earlier, so the tree changes nothing
            if (n + 1 < total)
            {
                if (m_origin_of[n + 1]) OriginFetch(n + 1);
                else Fetch({n + 1}, true);
            }
        }
        else if (p == "http10_parallel")
        {
            // latency_lab/protocols/http10_parallel.py: the revealed objects queue behind those discovered before
            // them; the first waiting object of each origin with a free slot (of parallel) goes on a new connection
            m_pending.insert(m_pending.end(), found.begin(), found.end());
            if (n != 0) m_busy[m_origin_of[n]]--;
            size_t i = 0;
            while (i < m_pending.size())
            {
                int other = m_pending[i];
                int o = m_origin_of[other];
                if (m_busy[o] >= m_c.parallel)
                {
                    i++;
                    continue;
                }
                m_busy[o]++;
                m_pending.erase(m_pending.begin() + i);
                if (o) OriginFetch(other);
                else Fetch({other}, true);
            }
        }
        else if (p == "persistent")
        {
            if (n + 1 < total)
            {
                int next = n + 1, o = m_origin_of[next];
                if (o) OriginConn(o, [this, next](int c) { Request(c, {next}, Think()); });
                else Request(html, {next}, Think());
            }
        }
        else if (p == "persistent_parallel")
        {
            // latency_lab/protocols/persistent_parallel.py, Pool.done and Pool.dispatch: the objects are known once
            // their parent has arrived; this connection takes the next waiting one of its origin, then (when this
            // arrival revealed objects of its origin) the idle connections take theirs in order and new ones open
            // while fewer than parallel are open; objects of other origins join their origins' pools
            int po = m_origin_of[n];
            std::map<int, std::vector<int>> groups = ByOrigin(found);
            std::vector<int> mine = groups.count(po) ? groups[po] : std::vector<int>();
            std::vector<int>& pending = po == 0 ? m_pending : m_origins[po - 1].pending;
            pending.insert(pending.end(), mine.begin(), mine.end());
            PoolReady(po, id);
            if (!mine.empty()) Dispatch(po);
            for (auto& [o, group] : groups)
            {
                if (o == po) continue;
                std::vector<int>& other = o == 0 ? m_pending : m_origins[o - 1].pending;
                other.insert(other.end(), group.begin(), group.end());
                Dispatch(o);
            }
        }
        else if (p == "h2")
        {
            // latency_lab/protocols/h2.py, load: the revealed objects' streams in one write, on the HTML's
            // connection (its origin's, and a coalesced origin's once its lookup has ended) or their origin's own
            for (auto& [o, group] : ByOrigin(found))
            {
                std::vector<int> g = group;
                if (o == 0) StreamRequests(html, g, Think());
                else if (m_origins[o - 1].co) Lookup(o, [this, html, g]() { StreamRequests(html, g, Think()); });
                else OriginConn(o, [this, g](int c) { StreamRequests(c, g, Think()); });
            }
        }
        else if (p == "pipelined")
        {
            // latency_lab/protocols/pipelined.py: the revealed objects' requests, after those already asked for, on
            // their origin's connection (once ready)
            for (auto& [o, group] : ByOrigin(found))
            {
                std::vector<int> g = group;
                if (o == 0) Pipeline(html, g);
                else OriginConn(o, [this, g](int c) { Pipeline(c, g); });
            }
        }
        else if (p == "getall")
        {
            // latency_lab/protocols/getall.py: once the HTML has arrived, one GETALL to each other origin for all its
            // objects (page.object_parents does not delay them: the server parses the page)
            std::vector<int> all;
            for (int i = 1; i < total; i++) all.push_back(i);
            if (n == 0)
                for (auto& [o, group] : ByOrigin(all))
                {
                    std::vector<int> g = group;
                    if (o) OriginConn(o, [this, g](int c) { Request(c, g, Think()); });
                }
        }
    }

    void Pipeline(int id, const std::vector<int>& names)
    {
        Time at = Think();
        if (m_c.pipeline_one && names.size() > 1)
        {
            RequestsInOneWrite(id, names, at);
        }
        else
        {
            for (int i : names) Request(id, {i}, at);
        }
    }

    // persistent_parallel: connection id of origin o is free: it asks for the next waiting object, or idles
    void PoolReady(int o, int id)
    {
        if (o == 0)
        {
            Ready(id);
            return;
        }
        Origin& st = m_origins[o - 1];
        if (st.pending.empty())
        {
            st.free.push_back(id);
            return;
        }
        int next = st.pending.front();
        st.pending.erase(st.pending.begin());
        Request(id, {next}, Think());
    }

    // persistent_parallel (Pool.dispatch): objects of origin o were discovered: idle connections take the waiting
    // objects, then new connections open while fewer than parallel are (another origin's after its DNS lookup)
    void Dispatch(int o)
    {
        std::vector<int>& pending = o == 0 ? m_pending : m_origins[o - 1].pending;
        std::vector<int>& free = o == 0 ? m_free : m_origins[o - 1].free;
        while (!pending.empty() && !free.empty())
        {
            int k = free.front();
            free.erase(free.begin());
            PoolReady(o, k);
        }
        if (o == 0)
        {
            while (!m_pending.empty() && 1 + m_extra < m_c.parallel)
            {
                int next = m_pending.front();
                m_pending.erase(m_pending.begin());
                m_extra++;
                m_start[next] = Now(); // as the model's fetch_on_new_connection: asked for when opened
                Fetch({next}, false);
            }
            return;
        }
        Origin& st = m_origins[o - 1];
        while (!st.pending.empty() && st.conns < m_c.parallel)
        {
            int next = st.pending.front();
            st.pending.erase(st.pending.begin());
            if (m_start[next] < 0) m_start[next] = Now();
            st.conns++;
            OpenOrigin(o, false, [this, next](int id) { Request(id, {next}, Think()); });
        }
    }

    // persistent_parallel (run): a preconnected origin has one connection opened at the click, idle once ready
    void PoolPreconnectOrigins()
    {
        for (size_t k = 0; k < m_origins.size(); k++)
        {
            int o = static_cast<int>(k) + 1;
            Origin& st = m_origins[k];
            if (st.pre && st.conns == 0)
            {
                st.conns++;
                OpenOrigin(o, false, [this, o](int id) { PoolReady(o, id); });
            }
        }
    }

    // persistent_parallel: connection id is free: it asks for the next waiting object, or idles
    void Ready(int id)
    {
        if (m_pending.empty())
        {
            m_free.push_back(id);
            return;
        }
        int next = m_pending.front();
        m_pending.erase(m_pending.begin());
        Request(id, {next}, Think());
    }

    // persistent_parallel with preconnect (model Pool.preconnect): the other connections open beside the HTML's
    void Preconnect()
    {
        while (1 + m_extra < m_c.parallel)
        {
            m_extra++;
            if (!m_c.handshake)
            {
                int id = m_pool_next++;
                NS_ABORT_MSG_IF(id >= static_cast<int>(m_conns.size()), "connection pool exhausted");
                m_conns[id].close_after = false;
                m_out << "OPEN " << Now() << " " << id << "\n";
                OnOpen(id);
            }
            else
            {
                NewConn(false);
            }
        }
    }

    void Start()
    {
        m_started = true;
        m_t0 = Simulator::Now();
        m_out << "START " << m_t0.GetNanoSeconds() << "\n";
        const std::string& p = m_c.protocol;
        if (p == "http10" || p == "http10_parallel")
        {
            Fetch({0}, true);
            PreconnectOrigins(true, false);
        }
        else
        {
            Fetch({0}, false);
            if (p == "persistent_parallel" && m_c.preconnect) Preconnect();
            if (p == "persistent_parallel") PoolPreconnectOrigins();
            else PreconnectOrigins(false, p == "h2");
        }
    }
};

std::string
Sim::Run()
{
    const Setup& c = m_c;
    size_t nobj = c.sizes.size();
    m_start.assign(nobj, -1);
    m_end.assign(nobj, -1);
    m_objconn.assign(nobj, -1);
    m_reveals.assign(nobj, {});
    m_origins.assign(c.origin_dns.size(), Origin());
    for (size_t k = 0; k < c.origin_dns.size(); k++)
    {
        m_origins[k].dns_ms = c.origin_dns[k];
        m_origins[k].pre = c.origin_pre[k] != 0;
        m_origins[k].co = c.origin_co[k] != 0;
    }
    m_origin_of.assign(nobj, 0);
    for (size_t i = 1; i < nobj && !c.object_origins.empty(); i++)
    {
        int o = c.object_origins[i - 1];
        NS_ABORT_MSG_IF(o < 0 || static_cast<size_t>(o) > c.origin_dns.size(), "object " << i << "'s origin " << o);
        m_origin_of[i] = o;
    }
    m_busy.assign(1 + c.origin_dns.size(), 0);
    for (size_t i = 1; i < nobj; i++)
    {
        int parent = c.parents.empty() ? 0 : c.parents[i - 1];
        NS_ABORT_MSG_IF(parent < 0 || static_cast<size_t>(parent) >= i, "object " << i << "'s parent " << parent);
        m_reveals[parent].push_back(static_cast<int>(i));
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(c.mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(c.iw));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(c.rwnd));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(c.sndbuf));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(c.dack_ms > 0 ? c.dack_segments : 1));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Ms(c.dack_ms > 0 ? c.dack_ms : 1)));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(!c.nagle));
    // No loss, so no retransmission: timers long enough never to fire, even behind a deep queue.
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(c.stop_s)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(c.stop_s)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(c.stop_s)));
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(0.001));
    if (c.loss_rate > 0)
    {
        // With loss the timers must fire: RFC 6298's 1 s before an RTT sample (and for the SYN), the
        // profile's minimum after; retries enough that no connection gives up.
        Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
        Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(100));
        Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100));
        Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Ms(c.rto_min_ms)));
        Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(c.seed);
    }
    // 40-byte IP+TCP headers on every data segment and ACK: no timestamps, no SACK; window scaling
    // only when the receive window needs it (it adds an option to SYN and SYN-ACK only).
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(c.rwnd > 65535));

    NodeContainer nodes;
    nodes.Create(2);
    m_client = nodes.Get(0);
    m_server = nodes.Get(1);

    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1000000p")));
    // an MTU that carries a full segment without IP fragmentation (IP 20 + TCP 20 bytes of headers)
    p2p.SetDeviceAttribute("Mtu", UintegerValue(std::min<uint32_t>(65535, std::max<uint32_t>(1500, c.mss + 40))));
    p2p.SetChannelAttribute("Delay", TimeValue(Ms(c.d_up_ms)));
    NetDeviceContainer devA = p2p.Install(m_client, m_server);
    p2p.SetChannelAttribute("Delay", TimeValue(Ms(c.d_down_ms)));
    NetDeviceContainer devB = p2p.Install(m_server, m_client);
    uint64_t up = static_cast<uint64_t>(c.b_up + 0.5), down = static_cast<uint64_t>(c.b_down + 0.5);
    devA.Get(0)->SetAttribute("DataRate", DataRateValue(DataRate(up)));
    devA.Get(1)->SetAttribute("DataRate", DataRateValue(DataRate(up)));
    devB.Get(0)->SetAttribute("DataRate", DataRateValue(DataRate(down)));
    devB.Get(1)->SetAttribute("DataRate", DataRateValue(DataRate(down)));

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifA = addr.Assign(devA);
    addr.SetBase("10.0.2.0", "255.255.255.0");
    Ipv4InterfaceContainer ifB = addr.Assign(devB);
    TrafficControlHelper tch;
    tch.Uninstall(devA);
    tch.Uninstall(devB);
    m_caddr = ifA.GetAddress(0);
    m_saddr = ifA.GetAddress(1);
    Ipv4StaticRoutingHelper srh;
    Ptr<Ipv4> sip = m_server->GetObject<Ipv4>();
    srh.GetStaticRouting(sip)->AddHostRouteTo(m_caddr, ifB.GetAddress(1), sip->GetInterfaceForDevice(devB.Get(0)));

    if (c.loss_rate > 0)
    {
        // a RateErrorModel on each receiving device: every packet, either way, lost independently
        int stream = 0;
        for (Ptr<NetDevice> d : {devA.Get(1), devB.Get(1)})
        {
            Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
            u->SetStream(stream++);
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(c.loss_rate);
            em->SetRandomVariable(u);
            d->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }

    // traces: enqueue (TCP's send time), start and end of serialization, arrival
    devA.Get(0)->TraceConnectWithoutContext("MacTx", MakeCallback(&Sim::MacTxUp, this));
    devB.Get(0)->TraceConnectWithoutContext("MacTx", MakeCallback(&Sim::MacTxDown, this));
    devA.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Sim::TxBeginUp, this));
    devB.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Sim::TxBeginDown, this));
    devA.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Sim::TxEndUp, this));
    devB.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Sim::TxEndDown, this));
    devA.Get(1)->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&Sim::RxEndUp, this));
    devB.Get(1)->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&Sim::RxEndDown, this));
    for (uint32_t i = 0; i < 2; i++)
    {
        for (Ptr<NetDevice> d : {devA.Get(i), devB.Get(i)})
        {
            d->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&Sim::Drop, this));
            d->TraceConnectWithoutContext("PhyTxDrop", MakeCallback(&Sim::Drop, this));
            d->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&Sim::Drop, this));
        }
        // the unused direction of each link must stay silent
        m_unused[i] = (i == 0 ? devA.Get(1) : devB.Get(1));
    }
    for (Ptr<Node> n : {m_client, m_server})
    {
        n->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Drop", MakeCallback(&Sim::IpDrop, this));
    }

    if (c.dns_ms > 0)
    {
        // DNS: a resolver node on a link of its own, dns_ms / 2 each way; so fast (1 Tb/s) that the
        // query's and the answer's serialization are under a nanosecond, as latency_lab/mechanisms/dns.py leaves them out
        Ptr<Node> resolver = CreateObject<Node>();
        stack.Install(resolver);
        PointToPointHelper dnsLink;
        dnsLink.SetDeviceAttribute("DataRate", DataRateValue(DataRate(1000000000000ULL)));
        dnsLink.SetChannelAttribute("Delay", TimeValue(Ms(c.dns_ms / 2)));
        NetDeviceContainer devC = dnsLink.Install(m_client, resolver);
        for (uint32_t i = 0; i < 2; i++)
        {
            devC.Get(i)->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&Sim::Drop, this));
            devC.Get(i)->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&Sim::Drop, this));
        }
        addr.SetBase("10.0.3.0", "255.255.255.0");
        Ipv4InterfaceContainer ifC = addr.Assign(devC);
        tch.Uninstall(devC);
        resolver->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Drop", MakeCallback(&Sim::IpDrop, this));
        m_dns_server = Socket::CreateSocket(resolver, UdpSocketFactory::GetTypeId());
        m_dns_server->Bind(InetSocketAddress(Ipv4Address::GetAny(), 53));
        m_dns_server->SetRecvCallback(MakeCallback(&Sim::DnsServe, this));
        m_dns_client = Socket::CreateSocket(m_client, UdpSocketFactory::GetTypeId());
        m_dns_client->Bind(InetSocketAddress(ifC.GetAddress(0), 0));
        m_dns_client->Connect(InetSocketAddress(ifC.GetAddress(1), 53));
        m_dns_client->SetRecvCallback(MakeCallback(&Sim::DnsAnswer, this));
    }

    if (c.fast_open && c.loss_rate > 0)
    {
        // TfoSocket neither retransmits a SYN's data nor a SYN-ACK once open early: lossless runs only
        throw std::invalid_argument("Fast Open is simulated without loss only");
    }
    Ptr<Socket> listen = c.fast_open ? Ptr<Socket>(TfoSocket::Make(m_server, true))
                                     : Socket::CreateSocket(m_server, TcpSocketFactory::GetTypeId());
    listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), 80));
    listen->Listen();
    listen->SetAcceptCallback(MakeCallback(&Sim::AcceptRequest, this), MakeCallback(&Sim::Accepted, this));

    if (c.handshake)
    {
        Simulator::ScheduleNow(&Sim::Start, this);
    }
    else
    {
        // handshake "none": every connection the protocol will use is opened before the page starts
        bool http10 = c.protocol == "http10" || c.protocol == "http10_parallel";
        m_pool_size = http10 ? static_cast<int>(nobj) : 1;
        if (c.protocol == "persistent_parallel")
            m_pool_size = c.preconnect ? static_cast<int>(c.parallel) : static_cast<int>(std::min<size_t>(c.parallel, nobj));
        for (int i = 0; i < m_pool_size; i++) NewConn(false);
    }
    Simulator::Stop(Seconds(c.stop_s));
    Simulator::Run();

    std::ostringstream head;
    head << "T0 " << m_t0.GetNanoSeconds() << "\n";
    head << "DROPS " << m_drops << "\n";
    for (size_t i = 0; i < nobj; i++)
    {
        head << "OBJ " << i << " " << m_objconn[i] << " " << m_start[i] << " " << m_end[i] << "\n";
    }
    for (const Conn& k : m_conns)
    {
        head << "PORT " << k.id << " " << k.port << "\n";
    }
    for (int dir = 0; dir < 2; dir++)
    {
        for (const Pkt& k : m_pkts[dir])
        {
            head << "PKT " << k.dir << " " << k.tq << " " << k.ts << " " << k.te << " " << k.ta << " " << k.sq << " "
                 << k.sa << " " << k.size << " " << k.payload << " " << k.sport << " " << k.dport << " "
                 << static_cast<int>(k.flags) << " " << k.seq << " " << k.ack << " " << k.win << "\n";
        }
    }
    for (int i = 0; i < 2; i++)
    {
        head << "UNUSED " << i << " "
             << DynamicCast<PointToPointNetDevice>(m_unused[i])->GetQueue()->GetTotalReceivedPackets() << "\n";
    }
    Simulator::Destroy();
    return head.str() + m_out.str();
}

std::string
RunScenario(const std::string& text)
{
    Ipv4AddressGenerator::Reset();
    Setup c = ParseSetup(text);
    Sim sim(c);
    return sim.Run();
}

} // namespace llab
