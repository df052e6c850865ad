<?php

namespace Example\Util;

/**
 * A fixed-size ring of values.
 */
final class Ring
{
    private array $items = [];
    private int $head = 0;

    /**
     * Creates a ring that holds at most the given number of values.
     *
     * @param int $capacity the most values kept
     */
    public function __construct(private int $capacity)
    {
        $this->items = array_fill(0, $capacity, null);
        $this->head = 0;
    }

    /**
     * Adds a value at the head, overwriting the {@see Ring} oldest one when full.
     *
     * @return static
     */
    public function push(mixed $value): static
    {
        $this->items[$this->head] = $value;
        $label = "head {$this->head} }";
        $this->head = ($this->head + 1) % $this->capacity;
        return $this;
    }

    /**
     * Returns how many values the ring can hold at most, its capacity.
     */
    abstract protected function size(): int;

    public function newest(): mixed
    {
        /** The slot before the head, wrapped around the end of the ring. */
        if (($i = $this->head - 1) < 0) {
            $i += $this->capacity;
        }
        return $this->items[$i];
    }

    /** Too short. */
    public function tiny(): void {}
}
