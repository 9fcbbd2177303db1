package ingest

// TagIDs returns the rows' values of tag column key as indices into Names
// (0 is "": the row has no such tag), decoding the column for the batch
// on first use, as a Sample's Tags.Get does; Names is updated to cover
// the column's strings. ok is false when key is not one of the file's tag
// columns (Tags.Get then looks in the row's extra tags and metadata,
// which TagIDs does not). The slice is valid during the sink's call only.
//
// For row i, Names[ids[i]] is the value Sample(i).Tags.Get(key) returns,
// and it is present exactly when it is not "".
func (bt *Batch) TagIDs(key string) (ids []int32, ok bool) {
	j := -1
	for k, name := range bt.c.keys {
		if name == key {
			j = k
			break
		}
	}
	if j < 0 {
		return nil, false
	}
	b := bt.b
	b.need(j)
	bt.Names = b.tab.strs
	return b.ids[j][:b.n], true
}
