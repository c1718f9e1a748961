package crypto

// Seed 000 (".NET 6": Cryptography and Blazor's SHA-256), ported to crypto/hmac, crypto/sha256,
// crypto/rand, crypto/aes, crypto/cipher and encoding/base64. crypto/pbkdf2 arrived only in Go 1.24,
// so PBKDF2-HMAC-SHA256 is written out here (RFC 8018 §5.2) and every Go version runs the same code.

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"

	"perflab.dev/go/perflab"
)

func meta() perflab.Option { return perflab.Meta("seed", "000", "section", "Cryptography") }

var (
	password = []byte("my super strong password")
	salt     = []byte{1, 2, 3, 4, 5, 6, 7, 8}
)

// pbkdf2SHA256 derives keyLen bytes from password and salt with `iter` iterations of HMAC-SHA256.
func pbkdf2SHA256(password, salt []byte, iter, keyLen int) []byte {
	prf := hmac.New(sha256.New, password)
	hLen := prf.Size()
	out := make([]byte, 0, (keyLen+hLen-1)/hLen*hLen)
	var u, t []byte
	for block := uint32(1); len(out) < keyLen; block++ {
		prf.Reset()
		prf.Write(salt)
		prf.Write(binary.BigEndian.AppendUint32(nil, block))
		u = prf.Sum(u[:0])
		t = append(t[:0], u...)
		for i := 1; i < iter; i++ {
			prf.Reset()
			prf.Write(u)
			u = prf.Sum(u[:0])
			for k := range t {
				t[k] ^= u[k]
			}
		}
		out = append(out, t...)
	}
	return out[:keyLen]
}

// AES-CBC one-shot decryption (the seed's Aes.DecryptCbc): key, IV and the ciphertext of
// "This is a test.  This is only a test." with PKCS#7 padding, made once.
var aesKey, aesIV, aesCiphertext = func() ([]byte, []byte, []byte) {
	key, iv := make([]byte, 32), make([]byte, aes.BlockSize)
	if _, err := rand.Read(key); err != nil {
		panic(err)
	}
	if _, err := rand.Read(iv); err != nil {
		panic(err)
	}
	plain := []byte("This is a test.  This is only a test.")
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	plain = append(plain, bytes.Repeat([]byte{byte(pad)}, pad)...)
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	ct := make([]byte, len(plain))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, plain)
	return key, iv, ct
}()

func decryptCbc(key, ciphertext, iv []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, len(ciphertext))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, ciphertext)
	pad := int(plain[len(plain)-1])
	if pad == 0 || pad > aes.BlockSize || pad > len(plain) {
		return nil, errors.New("bad PKCS#7 padding")
	}
	return plain[:len(plain)-pad], nil
}

// sonnet18: the seed's Blazor page hashes Shakespeare's Sonnet 18 (632 bytes of UTF-8) 2000 times under
// a Stopwatch; one call here is one of those SHA256.HashData calls.
var sonnet18 = []byte(`Shall I compare thee to a summer’s day?
Thou art more lovely and more temperate:
Rough winds do shake the darling buds of May,
And summer’s lease hath all too short a date;
Sometime too hot the eye of heaven shines,
And often is his gold complexion dimm'd;
And every fair from fair sometime declines,
By chance or nature’s changing course untrimm'd;
But thy eternal summer shall not fade,
Nor lose possession of that fair thou ow’st;
Nor shall death brag thou wander’st in his shade,
When in eternal lines to time thou grow’st:
So long as men can breathe or eyes can see,
So long lives this, and this gives life to thee.`)

func init() {
	perflab.Func("Pbkdf2", func() []byte { return pbkdf2SHA256(password, salt, 1000, 16) },
		perflab.Categories("crypto", "quick"), meta(), perflab.Meta("seed_method", "New"), // the seed's New (L3264)
		perflab.Meta("fidelity", "partial: PBKDF2 hand-written over crypto/hmac (crypto/pbkdf2 is Go >= 1.24)"),
		perflab.Description("Rfc2898DeriveBytes.Pbkdf2(password, salt, 1000, SHA256, 16), hand-written over crypto/hmac"))
	perflab.Func("GetBytes", func() []byte {
		b := make([]byte, 8)
		if _, err := rand.Read(b); err != nil {
			panic(err)
		}
		return b
	}, perflab.Categories("crypto"), meta(), perflab.Meta("fidelity", "faithful"),
		perflab.Description("RandomNumberGenerator.Create().GetBytes(new byte[8]) ↔ crypto/rand.Read of a new 8-byte slice (crypto/rand has no generator object to create)"))

	data := make([]byte, 10000000)
	for i := range data {
		data[i] = byte(i)
	}
	var dst bytes.Buffer
	perflab.Bench("Encode", func(n int) {
		for i := 0; i < n; i++ {
			dst.Reset() // _destination.Position = 0
			w := base64.NewEncoder(base64.StdEncoding, &dst)
			if _, err := w.Write(data); err != nil {
				panic(err)
			}
			if err := w.Close(); err != nil {
				panic(err)
			}
		}
		perflab.Sink(dst.Len())
	}, perflab.Categories("crypto"), meta(), perflab.Group("Base64"), perflab.Meta("fidelity", "faithful"),
		perflab.Description("CryptoStream + ToBase64Transform over 10 000 000 bytes ↔ a base64.NewEncoder stream into a reused buffer"))

	perflab.Func("DecryptCbc", func() []byte {
		p, err := decryptCbc(aesKey, aesCiphertext, aesIV)
		if err != nil {
			panic(err)
		}
		return p
	}, perflab.Categories("crypto"), meta(), perflab.Meta("seed_method", "New"), // the seed's New (L3179)
		perflab.Meta("fidelity", "partial: crypto/cipher has no PKCS#7 padding; the port checks and strips it itself"),
		perflab.Description("Aes.DecryptCbc one-shot (the seed's New) ↔ aes.NewCipher + cipher.NewCBCDecrypter + PKCS#7 unpadding"))

	perflab.Func("HashData", func() [sha256.Size]byte { return sha256.Sum256(sonnet18) },
		perflab.Group("Sha256"), perflab.Categories("crypto"),
		perflab.Meta("seed", "000", "section", "Blazor and mono", "fidelity", "faithful", "seed_method", "Hash"),
		perflab.Description("SHA256.HashData(UTF-8 of Sonnet 18) ↔ sha256.Sum256"))
}

// The port's PBKDF2 against known PBKDF2-HMAC-SHA256 vectors (and the seed's own call).
func TestPbkdf2SHA256(t *testing.T) {
	for _, c := range []struct {
		password, salt string
		iter, keyLen   int
		want           string
	}{
		{"password", "salt", 2, 32, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"},
		{"passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 40,
			"348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9"},
		{string(password), string(salt), 1000, 16, "e7209bc55dd3601ceb49b7e56a1a83dd"},
	} {
		if got := hex.EncodeToString(pbkdf2SHA256([]byte(c.password), []byte(c.salt), c.iter, c.keyLen)); got != c.want {
			t.Errorf("pbkdf2(%q, %q, %d, %d) = %s, want %s", c.password, c.salt, c.iter, c.keyLen, got, c.want)
		}
	}
	if p, err := decryptCbc(aesKey, aesCiphertext, aesIV); err != nil || string(p) != "This is a test.  This is only a test." {
		t.Errorf("decryptCbc = %q, %v", p, err)
	}
}
