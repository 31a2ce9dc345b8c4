public import Basics

/// The simulations' generator, from the base module: `SeededRandom(seed:)`.
public typealias SeededRandom = Basics.SeededRandom
