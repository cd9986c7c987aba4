package jsonscan

import "math"

// FieldsAlong lists the members of the JSON object data (a value
// JSONAt or Walk returned) and of the objects below it along path
// (object keys): levels[0] are data's members, and levels[k] the members of
// the value of the first member of levels[k-1] named path[k-1], as far as
// the path leads to objects (Walk's lookup). It is Fields of each
// of those objects, in one pass over data: Fields of an object passes
// over the values of its members, and a walk down the path would pass
// over them again. levels is empty when data is not an object.
func FieldsAlong(data []byte, path []string) (levels [][]Field) {
	return FieldsAlongIn(nil, data, path, nil)
}

// FieldsAlongIn is FieldsAlong in the storage of levels (a result
// of an earlier call, no longer read), which it overwrites: a caller that
// lists many objects one after another allocates once. known, when not
// nil, gives the places of some members' values in the last object along
// path, found by an earlier pass over the same bytes: those values are
// not passed over again.
func FieldsAlongIn(levels [][]Field, data []byte, path []string, known *Known) [][]Field {
	levels = levels[:0]
	if len(data) == 0 || data[0] != '{' {
		return levels
	}
	a := along{data: data, known: known}
	a.fields(0, path, &levels)
	return levels
}

// Known are the places of some members' values in one JSON object, the
// one whose first byte is At: they hold for those bytes only, and are
// used only where the object listed is at that very address (the same
// bytes, never a copy).
type Known struct {
	At      *byte
	Members []KnownMember
}

// KnownMember is where the value of an object's member Name sits: from
// Span.Start to Span.End, bytes from the start of the object.
type KnownMember struct {
	Name string
	Span Span
}

// Span is a range of bytes; the zero Span is unknown.
type Span struct{ Start, End uint32 }

// SpanOf is where sub, a part of data (a value Fields or Elems
// returned of it), sits in data; the zero Span when sub is not in data.
func SpanOf(data, sub []byte) Span {
	start := cap(data) - cap(sub)
	if len(sub) == 0 || start < 0 || start+len(sub) > len(data) || &data[start] != &sub[0] || start+len(sub) > math.MaxUint32 {
		return Span{}
	}
	return Span{uint32(start), uint32(start + len(sub))}
}

// along is one FieldsAlongIn pass.
type along struct {
	data  []byte
	known *Known
}

// skip returns the end of the value at vstart, the member key's value of
// the object at obj, from known when it is there.
func (a *along) skip(obj, vstart int, key []byte) int {
	if &a.data[obj] == a.known.At {
		for _, k := range a.known.Members {
			if obj+int(k.Span.Start) == vstart && obj+int(k.Span.End) <= len(a.data) && k.Span.End > k.Span.Start && KeyIs(key, k.Name) {
				return obj + int(k.Span.End)
			}
		}
	}
	return Skip(a.data, vstart)
}

// fields appends the members of the object at data[i] to levels,
// then, descending into the one path names, those below it; it returns the
// end of the object.
func (a *along) fields(i int, path []string, levels *[][]Field) int {
	data := a.data
	obj := i
	level := len(*levels)
	if level < cap(*levels) { // storage of an earlier call
		*levels = (*levels)[:level+1]
		(*levels)[level] = (*levels)[level][:0]
	} else {
		*levels = append(*levels, nil)
	}
	found := len(path) == 0
	i++
	for i < len(data) && data[i] == '"' {
		kend := Skip(data, i)
		vstart := kend + 1 // past ':'
		var vend int
		switch {
		case !found && KeyIs(data[i:kend], path[0]):
			found = true
			if vstart < len(data) && data[vstart] == '{' {
				vend = a.fields(vstart, path[1:], levels)
			} else {
				vend = Skip(data, vstart)
			}
		case len(path) == 0 && a.known != nil:
			vend = a.skip(obj, vstart, data[i:kend])
		default:
			vend = Skip(data, vstart)
		}
		(*levels)[level] = append((*levels)[level], Field{Key: data[i:kend], Value: data[vstart:vend]})
		i = vend
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return min(i+1, len(data)) // past '}'
}
