// Seed 000 (".NET 6": JSON), ported to JavaScript's JSON: serialize and parse the seed's BlogPost.
// JsonSerializer.Serialize (metadata found at run time) ↔ JSON.stringify of the class instance (V8
// walks the object's own properties). The source generator's fast path ↔ what it generates: a
// per-type serializer writing each property directly (JSON.stringify only escapes the strings).
import { bench } from 'perflab';

const META = { seed: '000', section: 'JSON' };

class BlogPost {
  constructor(Title, Author, PublicationYear) {
    this.Title = Title;
    this.Author = Author;
    this.PublicationYear = PublicationYear;
  }
}

// The generated BlogPostSerialize(writer, value) of the seed, as JavaScript.
function blogPostSerialize(value) {
  if (value === null) return 'null';
  return `{"Title":${JSON.stringify(value.Title)},"Author":${JSON.stringify(value.Author)},`
    + `"PublicationYear":${value.PublicationYear}}`;
}

const setup = () => {
  const post = new BlogPost('.NET 6 Performance', 'Me', 2021);
  return { post, text: JSON.stringify(post) };
};

bench('JsonSerializerWithoutFastPath', ({ post }) => JSON.stringify(post),
  { setup, categories: ['json', 'quick'], meta: { ...META,
    fidelity: 'partial: JSON.stringify to a string; the seed serializes by reflection into a reused Utf8JsonWriter' } });

bench('JsonSerializerWithFastPath', ({ post }) => blogPostSerialize(post),
  { setup, categories: ['json'], meta: { ...META,
    fidelity: 'different: no source generator; a hand-written per-type serializer stands for the generated one' } });

bench('Deserialize', ({ text }) => {
  const d = JSON.parse(text);
  return new BlogPost(d.Title, d.Author, d.PublicationYear);
}, { setup, categories: ['json'], meta: { extra: true, related: '000 · JSON' } });
