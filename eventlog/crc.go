package eventlog

import "encoding/binary"

// crcIEEE is crc32.ChecksumIEEE, by slicing-by-8 over a table written out in
// crctable.go. hash/crc32 builds its tables on first use, which took a hook
// process about 20 µs: forty times the checksum of its index.
func crcIEEE(p []byte) uint32 {
	crc := ^uint32(0)
	for len(p) >= 8 {
		crc ^= binary.LittleEndian.Uint32(p)
		crc = crcTable8[0][p[7]] ^ crcTable8[1][p[6]] ^ crcTable8[2][p[5]] ^ crcTable8[3][p[4]] ^
			crcTable8[4][crc>>24] ^ crcTable8[5][(crc>>16)&0xFF] ^
			crcTable8[6][(crc>>8)&0xFF] ^ crcTable8[7][crc&0xFF]
		p = p[8:]
	}
	for _, v := range p {
		crc = crcTable8[0][byte(crc)^v] ^ (crc >> 8)
	}
	return ^crc
}
