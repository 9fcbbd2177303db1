package knee

// RandomEffects exports randomEffects to the tests of package knee_test.
var RandomEffects = randomEffects
