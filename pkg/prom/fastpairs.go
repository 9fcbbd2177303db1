package prom

import (
	"bytes"
	"strconv"
)

// parsePairs parses a "values" array, `[[<unix seconds>,"<value>"],...]`,
// without reflection: the common case of API answers. Times are read as
// prometheus/common/model.Time reads them (seconds and up to three
// fractional digits, the rest cut), values as model.SampleValue (a quoted
// float, NaN and ±Inf included). ok is false for anything else (an
// escape, a number in exponent form, bad syntax); the caller then decodes
// the array generically, for the exact error.
func parsePairs(b []byte, dst []Point) ([]Point, bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return dst, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return dst, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '[' {
			return dst, false
		}
		i = skipWS(b, i+1)
		// The time: digits, an optional '.', digits.
		j := i
		if j < len(b) && b[j] == '-' {
			j++
		}
		digits := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		intEnd := j
		// JSON numbers have no leading zero ("00", "-01") and a digit
		// after a '.'.
		if intEnd-digits > 1 && b[digits] == '0' {
			return dst, false
		}
		frac := 0
		fracDigits := 0
		if j < len(b) && b[j] == '.' {
			j++
			if j >= len(b) || b[j] < '0' || b[j] > '9' {
				return dst, false
			}
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				if fracDigits < 3 {
					frac = frac*10 + int(b[j]-'0')
					fracDigits++
				}
				j++
			}
		}
		if intEnd == i || intEnd-i > 15 {
			return dst, false
		}
		sec, err := strconv.ParseInt(string(b[i:intEnd]), 10, 64)
		if err != nil {
			return dst, false
		}
		for ; fracDigits < 3; fracDigits++ {
			frac *= 10
		}
		ms := sec * 1000
		if b[i] == '-' { // "-0.1" is negative though its seconds are 0
			ms -= int64(frac)
		} else {
			ms += int64(frac)
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ',' {
			return dst, false
		}
		i = skipWS(b, i+1)
		if i >= len(b) || b[i] != '"' {
			return dst, false
		}
		k := bytes.IndexByte(b[i+1:], '"')
		if k < 0 {
			return dst, false
		}
		s := b[i+1 : i+1+k]
		if bytes.IndexByte(s, '\\') >= 0 {
			return dst, false
		}
		v, err := strconv.ParseFloat(string(s), 64)
		if err != nil {
			return dst, false
		}
		if ms > maxMS || ms < -maxMS {
			return dst, false
		}
		dst = append(dst, Point{TimeNS: ms * 1e6, Value: v})
		i = skipWS(b, i+2+k)
		if i >= len(b) || b[i] != ']' {
			return dst, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return dst, skipWS(b, i+1) == len(b)
		}
		return dst, false
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
