import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.sun.net.httpserver.HttpServer;

import perflab.Benchmark;
import perflab.Meta;
import perflab.OperationsPerInvocation;
import perflab.Setup;
import perflab.TearDown;

/**
 * Networking experiments of seeds 000 (".NET 6": Networking) and 003 (".NET Core 3.0": Networking),
 * ported to java.nio channels, com.sun.net.httpserver and java.net.http.HttpClient. Everything stays on
 * 127.0.0.1.
 */
public class NetworkingBench {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    static final int CONNECTS = 1000;   // as the seed's OperationsPerInvoke

    @Meta({"seed=000", "section=Networking"})
    public static class Sockets {
        /** A loopback listener; an AsynchronousSocketChannel connects and the listener accepts it, 1000 times
         * per call as in the seed, each operation awaited. */
        @Benchmark(categories = {"networking", "quick"}, description = "1000 asynchronous connect/accept pairs on loopback per call")
        @Meta("fidelity=faithful")
        @OperationsPerInvocation(CONNECTS)
        public void ConnectAcceptAsync() throws Exception {
            try (AsynchronousServerSocketChannel listener = AsynchronousServerSocketChannel.open()) {
                listener.bind(new InetSocketAddress(LOOPBACK, 0), 1);
                InetSocketAddress addr = (InetSocketAddress) listener.getLocalAddress();
                for (int i = 0; i < CONNECTS; i++) {
                    Future<AsynchronousSocketChannel> accepted = listener.accept();
                    try (AsynchronousSocketChannel client = AsynchronousSocketChannel.open()) {
                        client.connect(addr).get();
                        accepted.get().close();
                    }
                }
            }
        }
    }

    /** Two UDP channels on loopback; 10 000 one-byte datagrams sent and received per call, as the seed. */
    @Meta({"seed=000", "section=Networking",
           "fidelity=partial: the JDK has no asynchronous UDP channel; a blocking send, then a receive that finds the datagram queued, where the seed's ReceiveFromAsync is pending and completed by the send"})
    public static class Udp {
        DatagramChannel client, server;
        InetSocketAddress clientAddr;
        final ByteBuffer out = ByteBuffer.allocateDirect(1), in = ByteBuffer.allocateDirect(1);

        @Setup public void setup() throws IOException {
            client = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
            server = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
            clientAddr = (InetSocketAddress) client.getLocalAddress();
        }

        @TearDown public void teardown() throws IOException {
            client.close();
            server.close();
        }

        @Benchmark(categories = {"networking"}, description = "10 000 one-byte datagrams: send, then receive")
        @OperationsPerInvocation(10000)
        public void ReceiveSendAsync() throws IOException {
            for (int i = 0; i < 10000; i++) {
                out.clear();
                server.send(out, clientAddr);
                in.clear();
                client.receive(in);
            }
        }
    }

    /** A connected loopback TCP pair with an echo thread: 1000 one-byte round trips per call. Not the seed's
     * PingPong (256 websocket connections): an extra, without seed tags. */
    @Meta({"extra=true", "related=000 · Networking"})
    public static class TcpPingPong {
        SocketChannel client, server;
        Thread echo;
        final ByteBuffer out = ByteBuffer.allocateDirect(1), in = ByteBuffer.allocateDirect(1);

        @Setup public void setup() throws IOException {
            try (ServerSocketChannel listener = ServerSocketChannel.open()) {
                listener.bind(new InetSocketAddress(LOOPBACK, 0), 1);
                client = SocketChannel.open(listener.getLocalAddress());
                server = listener.accept();
            }
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            server.setOption(StandardSocketOptions.TCP_NODELAY, true);
            echo = new Thread(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(1);
                try {
                    while (true) {
                        b.clear();
                        if (server.read(b) < 0) return;
                        b.flip();
                        while (b.hasRemaining()) server.write(b);
                    }
                } catch (IOException e) {
                    // the client closed: done
                }
            }, "perflab-echo");
            echo.setDaemon(true);
            echo.start();
        }

        @TearDown public void teardown() throws Exception {
            client.close();
            echo.join(5000);
            server.close();
        }

        @Benchmark(categories = {"networking"}, description = "1000 one-byte round trips to an echo thread")
        @OperationsPerInvocation(1000)
        public void PingPong() throws IOException {
            for (int i = 0; i < 1000; i++) {
                out.clear();
                while (out.hasRemaining()) client.write(out);
                in.clear();
                while (in.hasRemaining()) {
                    if (client.read(in) < 0) throw new IOException("echo closed");
                }
            }
        }
    }

    /** A 10 MB response from com.sun.net.httpserver on 127.0.0.1, read through a kept-alive java.net.http
     * HttpClient (HTTP/1.1) into a reused 64 KiB buffer (the seed copies it to Stream.Null). */
    @Meta({"seed=003", "section=Networking", "fidelity=faithful"})
    public static class Http {
        static final byte[] BODY = new byte[10 * 1024 * 1024];
        HttpServer httpd;
        ExecutorService serverThreads;
        HttpClient client;
        HttpRequest request;
        final byte[] buf = new byte[65536];

        @Setup public void setup() throws IOException {
            httpd = HttpServer.create(new InetSocketAddress(LOOPBACK, 0), 0);
            httpd.createContext("/", exchange -> {
                try (InputStream req = exchange.getRequestBody()) {
                    req.readAllBytes();
                }
                exchange.sendResponseHeaders(200, BODY.length);
                try (OutputStream body = exchange.getResponseBody()) {
                    body.write(BODY);
                }
            });
            serverThreads = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "perflab-httpd");
                t.setDaemon(true);
                return t;
            });
            httpd.setExecutor(serverThreads);
            httpd.start();
            client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpd.getAddress().getPort() + "/"))
                    .timeout(Duration.ofSeconds(30)).GET().build();
        }

        @TearDown public void teardown() {
            httpd.stop(0);
            serverThreads.shutdownNow();
        }

        @Benchmark(categories = {"networking", "quick"}, description = "GET 10 MB, read the body stream into a 64 KiB buffer")
        public long HttpDownload() throws Exception {
            HttpResponse<InputStream> r = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            long total = 0;
            try (InputStream s = r.body()) {
                int n;
                while ((n = s.read(buf)) > 0) total += n;
            }
            if (total != BODY.length) throw new IOException("short body: " + total);
            return total;
        }
    }

    @Meta({"seed=003", "section=Networking"})
    public static class ByteOrders {
        long value = 1234567890123456789L;   // the seed's _value

        /** IPAddress.HostToNetworkOrder(long) ↔ big-endian on a little-endian host: Long.reverseBytes (an intrinsic). */
        @Benchmark(categories = {"networking"}, description = "HostToNetworkOrder(long): reverse the bytes when the host is little-endian")
        @Meta("fidelity=faithful")
        public long HostToNetworkOrder() {
            return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Long.reverseBytes(value) : value;
        }
    }
}
