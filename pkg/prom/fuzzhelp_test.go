package prom

import (
	"encoding/json"
	"sort"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func sortStrings(s []string) { sort.Strings(s) }
