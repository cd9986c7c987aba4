package loader

// JSONFieldsAlong lists the members of the JSON object data (a value
// JSONAt or WalkJSON returned) and of the objects below it along path
// (object keys): levels[0] are data's members, and levels[k] the members of
// the value of the first member of levels[k-1] named path[k-1], as far as
// the path leads to objects (WalkJSON's lookup). It is JSONFields of each
// of those objects, in one pass over data: JSONFields of an object passes
// over the values of its members, and a walk down the path would pass
// over them again. levels is empty when data is not an object.
func JSONFieldsAlong(data []byte, path []string) (levels [][]JSONField) {
	return JSONFieldsAlongIn(nil, data, path)
}

// JSONFieldsAlongIn is JSONFieldsAlong in the storage of levels (a result
// of an earlier call, no longer read), which it overwrites: a caller that
// lists many objects one after another allocates once.
func JSONFieldsAlongIn(levels [][]JSONField, data []byte, path []string) [][]JSONField {
	levels = levels[:0]
	if len(data) == 0 || data[0] != '{' {
		return levels
	}
	fieldsAlong(data, 0, path, &levels)
	return levels
}

// fieldsAlong appends the members of the object at data[i] to levels,
// then, descending into the one path names, those below it; it returns the
// end of the object.
func fieldsAlong(data []byte, i int, path []string, levels *[][]JSONField) int {
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
		kend := skipJSON(data, i)
		vstart := kend + 1 // past ':'
		var vend int
		if !found && jsonKeyIs(data[i:kend], path[0]) {
			found = true
			if vstart < len(data) && data[vstart] == '{' {
				vend = fieldsAlong(data, vstart, path[1:], levels)
			} else {
				vend = skipJSON(data, vstart)
			}
		} else {
			vend = skipJSON(data, vstart)
		}
		(*levels)[level] = append((*levels)[level], JSONField{Key: data[i:kend], Value: data[vstart:vend]})
		i = vend
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return min(i+1, len(data)) // past '}'
}
