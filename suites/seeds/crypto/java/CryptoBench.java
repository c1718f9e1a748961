import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
        @Meta("fidelity=faithful")
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

    /** CryptoStream + ToBase64Transform over 10 000 000 bytes ↔ Base64.getEncoder(). */
    @Meta("section=Cryptography")
    public static class Base64Encoding {
        byte[] data;

        @Setup public void setup() {
            data = new byte[10000000];
            for (int i = 0; i < data.length; i++) data[i] = (byte) i;
        }

        @Benchmark(categories = {"crypto"}, description = "Base64.getEncoder().encode of 10 000 000 bytes")
        public byte[] Encode() {
            return Base64.getEncoder().encode(data);
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
        @Meta("seed_method=Old")   // the seed's baseline method is named Old
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
        public byte[] DecryptCbc() throws GeneralSecurityException {
            Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding");
            c.init(Cipher.DECRYPT_MODE, key, iv);
            return c.doFinal(ciphertext);
        }
    }

    /** SHA256.HashData over some UTF-8 text (seed: Blazor's Counter hashing Shakespeare). */
    @Meta("section=Blazor and mono")
    public static class Sha256 {
        @Param({"100", "100000"}) int length;
        byte[] data;

        @Setup public void setup() {
            String text = "To be, or not to be, that is the question: Whether 'tis nobler in the mind to suffer ";
            byte[] all = text.repeat(length / text.length() + 1).getBytes(StandardCharsets.UTF_8);
            data = java.util.Arrays.copyOf(all, length);
        }

        @Benchmark(categories = {"crypto"}, description = "MessageDigest.getInstance(\"SHA-256\").digest(data)")
        public byte[] HashData() throws GeneralSecurityException {
            return MessageDigest.getInstance("SHA-256").digest(data);
        }
    }
}
