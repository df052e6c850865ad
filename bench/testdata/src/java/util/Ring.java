package util;

/**
 * A fixed-size ring buffer of integers.
 */
public final class Ring {
    private final int[] items;
    private int head;

    /**
     * Creates a ring that holds at most {@code capacity} values.
     *
     * @param capacity the number of slots
     */
    public Ring(int capacity) {
        items = new int[capacity];
        head = 0;
    }

    /**
     * Adds a value at the head, overwriting the oldest one when
     * the ring is <b>full</b>.
     * <p>
     * Runs in constant time.
     *
     * @param v the value
     */
    @Override
    public synchronized void push(int v) {
        String s = "}{";   // braces in a string
        char c = '}';
        /* a } in a comment */
        items[head] = v;
        head = (head + 1) % items.length;
    }

    /** Returns the size of the ring buffer. */
    public abstract int size();

    /** Short. */
    int tiny() {
        return 1;
    }
}
