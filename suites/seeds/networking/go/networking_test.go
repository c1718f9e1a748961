package networking

// Networking experiments of seeds 000 and 003, ported to net and net/http on 127.0.0.1 only. Go's
// sockets are non-blocking underneath and its blocking calls park the goroutine on the runtime's
// network poller: the .NET *Async methods and Go's plain calls are the same model.

import (
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"time"

	"perflab.dev/go/perflab"
)

const loopback = "127.0.0.1"

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func meta(seed, section string) map[string]string {
	return map[string]string{"seed": seed, "section": section}
}

// faithful: the seed tags of a port audited as measuring what the seed measured.
func faithful(seed, section string) map[string]string {
	m := meta(seed, section)
	m["fidelity"] = "faithful"
	return m
}

var networking = []string{"networking"}

// -- ConnectAcceptAsync (000) ---------------------------------------------------------------------

const connects = 1000 // per call, as the seed's OperationsPerInvoke; ops keeps the figure per connection

func connectAccept(n int) {
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", loopback+":0")
		must(err)
		addr := ln.Addr().String()
		for k := 0; k < connects; k++ {
			client, err := net.Dial("tcp", addr)
			must(err)
			server, err := ln.Accept()
			must(err)
			must(server.Close())
			must(client.Close())
		}
		must(ln.Close())
	}
}

// -- ReceiveSendAsync (000): UDP ----------------------------------------------------------------------

const datagrams = 10000 // per call, as the seed's OperationsPerInvoke; ops keeps the figure per datagram

var udp struct{ client, server *net.UDPConn }

func setupUDP(map[string]string) func(int) {
	client, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.MustParseAddrPort(loopback+":0")))
	must(err)
	server, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.MustParseAddrPort(loopback+":0")))
	must(err)
	udp.client, udp.server = client, server
	to := client.LocalAddr().(*net.UDPAddr).AddrPort()
	buf := make([]byte, 1)
	return func(n int) {
		for i := 0; i < n; i++ {
			// The receiving side: a goroutine whose ReadFrom is parked on the runtime's poller when the
			// send arrives (Go's form of the seed's pending ReceiveFromAsync), and reports each datagram.
			received := make(chan struct{})
			go func() {
				in := make([]byte, 1)
				for k := 0; k < datagrams; k++ {
					_, _, err := client.ReadFromUDPAddrPort(in)
					must(err)
					received <- struct{}{}
				}
			}()
			for k := 0; k < datagrams; k++ {
				_, err := server.WriteToUDPAddrPort(buf, to)
				must(err)
				<-received // await receive
			}
		}
	}
}

func teardownUDP() {
	if udp.client != nil {
		_ = udp.client.Close()
		_ = udp.server.Close()
	}
	udp.client, udp.server = nil, nil
}

// -- TCP PingPong (000 Networking: the sockets' send/receive path) ----------------------------------

const pings = 1000

var tcp struct{ client, server net.Conn }

func setupTCP(map[string]string) func(int) {
	ln, err := net.Listen("tcp", loopback+":0")
	must(err)
	client, err := net.Dial("tcp", ln.Addr().String()) // TCP_NODELAY is Go's default
	must(err)
	server, err := ln.Accept()
	must(err)
	must(ln.Close())
	tcp.client, tcp.server = client, server
	go func() { // echo every byte until the client closes
		b := make([]byte, 1)
		for {
			if _, err := server.Read(b); err != nil {
				return
			}
			if _, err := server.Write(b); err != nil {
				return
			}
		}
	}()
	out, in := []byte{'x'}, make([]byte, 1)
	return func(n int) {
		for i := 0; i < n; i++ {
			for k := 0; k < pings; k++ {
				_, err := client.Write(out)
				must(err)
				_, err = io.ReadFull(client, in)
				must(err)
			}
		}
	}
}

func teardownTCP() {
	if tcp.client != nil {
		_ = tcp.client.Close()
		_ = tcp.server.Close()
	}
	tcp.client, tcp.server = nil, nil
}

// -- HttpDownload (003) -------------------------------------------------------------------------------

var body = make([]byte, 10*1024*1024)

var httpState struct {
	srv    *http.Server
	client *http.Client
	done   chan struct{}
}

func setupHTTP(map[string]string) func(int) {
	ln, err := net.Listen("tcp", loopback+":0")
	must(err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	// a kept-alive connection, no proxy, no compression: the seed's persistent HttpClient
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 1}}
	httpState.srv, httpState.client, httpState.done = srv, client, done
	url := "http://" + ln.Addr().String() + "/"
	return func(n int) {
		var total int64
		for i := 0; i < n; i++ {
			resp, err := client.Get(url)
			must(err)
			got, err := io.Copy(io.Discard, resp.Body) // CopyToAsync(Stream.Null)
			must(err)
			must(resp.Body.Close())
			total += got
		}
		perflab.Sink(total)
	}
}

func teardownHTTP() {
	if httpState.srv != nil {
		httpState.client.CloseIdleConnections()
		_ = httpState.srv.Close()
		<-httpState.done
	}
	httpState.srv, httpState.client, httpState.done = nil, nil, nil
}

var value = uint64(1234567890123456789) // the seed's _value

func init() {
	perflab.Register(perflab.Benchmark{Name: "ConnectAcceptAsync", Ops: connects, Categories: networking,
		Meta:        faithful("000", "Networking"),
		Description: "A loopback listener; net.Dial a client and Accept it, 1000 times per call as in the seed",
		Fn:          connectAccept})
	perflab.Register(perflab.Benchmark{Name: "ReceiveSendAsync", Ops: datagrams, Categories: networking,
		Meta:        map[string]string{"seed": "000", "section": "Networking", "fidelity": "faithful"},
		Description: "Two UDP sockets on loopback; 10 000 times a one-byte datagram sent to a receiving goroutine parked in ReadFrom, and its arrival awaited, as the seed",
		Setup:       setupUDP, Teardown: teardownUDP})
	perflab.Register(perflab.Benchmark{Name: "PingPong", Ops: pings, Categories: networking,
		Meta:        map[string]string{"extra": "true", "related": "000 · Networking"},
		Description: "Not the seed's PingPong (256 websocket connections): a connected loopback TCP pair with an echo goroutine: 1000 one-byte round trips per call",
		Setup:       setupTCP, Teardown: teardownTCP})
	perflab.Register(perflab.Benchmark{Name: "HttpDownload", Categories: []string{"networking", "quick"},
		Meta:        faithful("003", "Networking"),
		Description: "10 MB from a net/http server on 127.0.0.1, GET on a kept-alive http.Client, copied to io.Discard",
		Setup:       setupHTTP, Teardown: teardownHTTP})
	perflab.Func("GetHostName", func() string {
		h, err := os.Hostname()
		must(err)
		return h
	}, perflab.Categories(networking...), perflab.Meta("seed", "003", "section", "Networking", "fidelity", "faithful"),
		perflab.Description("Dns.GetHostName ↔ os.Hostname"))
	perflab.Func("HostToNetworkOrder", func() uint64 {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], value)
		return binary.NativeEndian.Uint64(b[:])
	}, perflab.Categories(networking...), perflab.Meta("seed", "003", "section", "Networking", "fidelity", "faithful"),
		perflab.Description("IPAddress.HostToNetworkOrder(long) ↔ the value's big-endian bytes read back in native order"))
}
