package json

// Seed 000 (".NET 6": JSON): serialize and parse the seed's BlogPost with encoding/json. Go has no
// source generator in its standard library; its reflection-based encoder caches one encoder per
// type. The seed's "fast path" (JsonSerializerContext writing straight into a reused Utf8JsonWriter)
// ↔ a reused json.Encoder writing into a reused bytes.Buffer, so no result slice is allocated.

import (
	"bytes"
	"encoding/json"

	"perflab.dev/go/perflab"
)

// BlogPost is the seed's record.
type BlogPost struct {
	Title           string
	Author          string
	PublicationYear int
}

var (
	post = BlogPost{Title: ".NET 6 Performance", Author: "Me", PublicationYear: 2021}
	text = []byte(`{"Title":".NET 6 Performance","Author":"Me","PublicationYear":2021}`)
	buf  bytes.Buffer
	enc  = json.NewEncoder(&buf)
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func meta() perflab.Option { return perflab.Meta("seed", "000", "section", "JSON") }

func init() {
	perflab.Func("JsonSerializerWithoutFastPath", func() []byte { return must(json.Marshal(&post)) },
		perflab.Categories("json", "quick"), meta(),
		perflab.Meta("fidelity", "partial: json.Marshal into a new []byte; the seed serializes into a reused Utf8JsonWriter on Stream.Null"),
		perflab.Description("json.Marshal of the BlogPost (reflection, per-type encoder cache)"))
	perflab.Func("JsonSerializerWithFastPath", func() int {
		buf.Reset()
		if err := enc.Encode(&post); err != nil {
			panic(err)
		}
		return buf.Len()
	}, perflab.Categories("json"), meta(),
		perflab.Meta("fidelity", "different: no source generator in Go; the same reflective encoder, only with a reused buffer"),
		perflab.Description("A reused json.Encoder into a reused bytes.Buffer"))
	perflab.Func("Deserialize", func() BlogPost {
		var p BlogPost
		if err := json.Unmarshal(text, &p); err != nil {
			panic(err)
		}
		return p
	}, perflab.Categories("json"), perflab.Meta("extra", "true", "related", "000 · JSON"),
		perflab.Description("json.Unmarshal into a BlogPost (not a seed method)"))
}
