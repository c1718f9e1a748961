import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Cipher;
import javax.crypto.CipherOutputStream;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;

import perflab.Baseline;
import perflab.Benchmark;
import perflab.Meta;
import perflab.Param;
import perflab.Setup;

/**
 * Seed 000 (".NET 6": Cryptography, and Blazor's SHA-256), ported to the JDK's providers (javax.crypto,
 * java.security) and java.util.Base64. Unlike Python's standard library, Java has AES: the seed's one-shot
 * Aes.DecryptCbc against its CryptoStream form is ported too.
 */
@Meta("seed=000")
public class CryptoBench {

    @Meta("section=Cryptography")
    public static class Cryptography {
        final char[] password = "my super strong password".toCharArray();
        final byte[] salt = {1, 2, 3, 4, 5, 6, 7, 8};

        @Benchmark(categories = {"crypto", "quick"},
                description = "Rfc2898DeriveBytes.Pbkdf2(password, salt, 1000, SHA256, 16) ↔ SecretKeyFactory PBKDF2WithHmacSHA256")
        @Meta({"seed_method=New", "fidelity=faithful"})   // the seed's New (L3264) calls Rfc2898DeriveBytes.Pbkdf2
        public byte[] Pbkdf2() throws GeneralSecurityException {
            SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            return f.generateSecret(new PBEKeySpec(password, salt, 1000, 16 * 8)).getEncoded();
        }

        @Benchmark(categories = {"crypto", "quick"},
                description = "RandomNumberGenerator.Create() + GetBytes(new byte[8]) ↔ new SecureRandom().nextBytes(new byte[8])")
        @Meta("fidelity=faithful")
        public byte[] GetBytes() {
            // The seed times creating the generator too (`using (var rng = RandomNumberGenerator.Create())`).
            SecureRandom rng = new SecureRandom();
            byte[] b = new byte[8];
            rng.nextBytes(b);
            return b;
        }
    }

    /**
     * CryptoStream + ToBase64Transform over 10 000 000 bytes into a reused MemoryStream (`Position = 0`,
     * `leaveOpen: true`) ↔ a Base64.getEncoder().wrap stream into a reused ByteArrayOutputStream (reset()
     * keeps its capacity; closing the wrapper flushes the last block, as disposing the CryptoStream does).
     */
    @Meta("section=Cryptography")
    public static class Base64Encoding {
        byte[] data;
        final ByteArrayOutputStream destination = new ByteArrayOutputStream();

        @Setup public void setup() {
            data = new byte[10000000];
            for (int i = 0; i < data.length; i++) data[i] = (byte) i;
        }

        @Benchmark(categories = {"crypto"}, description = "Base64.getEncoder().wrap(reused ByteArrayOutputStream).write of 10 000 000 bytes")
        @Meta("fidelity=faithful")
        public int Encode() throws IOException {
            destination.reset();
            try (OutputStream stream = Base64.getEncoder().wrap(destination)) {
                stream.write(data, 0, data.length);
            }
            return destination.size();
        }
    }

    /**
     * The seed's AES benchmark: decrypting "This is a test.  This is only a test." (AES-256-CBC, PKCS#7) with
     * a CryptoStream (its "Old") and with the one-shot Aes.DecryptCbc (its "New"). In Java: a
     * CipherOutputStream over a ByteArrayOutputStream, and Cipher.doFinal.
     */
    @Meta("section=Cryptography")
    public static class Aes {
        SecretKey key;
        IvParameterSpec iv;
        byte[] ciphertext;

        @Setup public void setup() throws GeneralSecurityException {
            KeyGenerator kg = KeyGenerator.getInstance("AES");
            kg.init(256);
            key = kg.generateKey();
            byte[] ivBytes = new byte[16];
            new SecureRandom().nextBytes(ivBytes);
            iv = new IvParameterSpec(ivBytes);
            Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding");
            c.init(Cipher.ENCRYPT_MODE, key, iv);
            ciphertext = c.doFinal("This is a test.  This is only a test.".getBytes(StandardCharsets.UTF_8));
        }

        @Benchmark(categories = {"crypto"}, description = "The seed's Old: decrypt through a CipherOutputStream")
        @Baseline
        @Meta({"seed_method=Old", "fidelity=faithful"})   // the seed's baseline method is named Old
        public byte[] DecryptCbcCryptoStream() throws GeneralSecurityException, IOException {
            Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding");
            c.init(Cipher.DECRYPT_MODE, key, iv);
            ByteArrayOutputStream destination = new ByteArrayOutputStream();
            try (CipherOutputStream s = new CipherOutputStream(destination, c)) {
                s.write(ciphertext);
            }
            return destination.toByteArray();
        }

        @Benchmark(categories = {"crypto"}, description = "The seed's New (Aes.DecryptCbc): one-shot Cipher.doFinal")
        @Meta({"seed_method=New", "fidelity=faithful"})   // the seed's New (L3179): Aes.DecryptCbc
        public byte[] DecryptCbc() throws GeneralSecurityException {
            Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding");
            c.init(Cipher.DECRYPT_MODE, key, iv);
            return c.doFinal(ciphertext);
        }
    }

    /**
     * The seed's Blazor page hashes Shakespeare's Sonnet 18 (632 bytes of UTF-8) 2000 times under a Stopwatch;
     * one call here is one SHA256.HashData ↔ MessageDigest.getInstance("SHA-256").digest.
     */
    @Meta("section=Blazor and mono")
    public static class Sha256 {
        static final String SONNET_18 = String.join("\n",
                "Shall I compare thee to a summer’s day?",
                "Thou art more lovely and more temperate:",
                "Rough winds do shake the darling buds of May,",
                "And summer’s lease hath all too short a date;",
                "Sometime too hot the eye of heaven shines,",
                "And often is his gold complexion dimm'd;",
                "And every fair from fair sometime declines,",
                "By chance or nature’s changing course untrimm'd;",
                "But thy eternal summer shall not fade,",
                "Nor lose possession of that fair thou ow’st;",
                "Nor shall death brag thou wander’st in his shade,",
                "When in eternal lines to time thou grow’st:",
                "So long as men can breathe or eyes can see,",
                "So long lives this, and this gives life to thee.");
        byte[] data;

        @Setup public void setup() {
            data = SONNET_18.getBytes(StandardCharsets.UTF_8);  // Encoding.UTF8.GetBytes, before the Stopwatch
        }

        @Benchmark(categories = {"crypto"}, description = "MessageDigest.getInstance(\"SHA-256\").digest(UTF-8 of Sonnet 18)")
        @Meta({"seed_method=Hash", "fidelity=faithful"})  // one of the 2000 SHA256.HashData calls of the page's Hash
        public byte[] HashData() throws GeneralSecurityException {
            return MessageDigest.getInstance("SHA-256").digest(data);
        }
    }
}
